/** metav1.LabelSelector matching for plain label maps (matchLabels and matchExpressions). */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';

export function labelSelectorMatches(sel: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const v = labels[e.key];
    switch (e.operator) {
      case 'In':
        if (!has || !(e.values ?? []).includes(v!)) return false;
        break;
      case 'NotIn':
        if (has && (e.values ?? []).includes(v!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
