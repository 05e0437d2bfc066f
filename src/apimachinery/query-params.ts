/**
 * Query parameters decoded as upstream's parameter codec decodes them into option structs
 * (ListOptions, PatchOptions, PodLogOptions, PodExecOptions…).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/runtime/conversion.go (Convert_Slice_string_To_bool)
 */

/**
 * A boolean query parameter: false when absent, `0` or `false` (any case); true for every
 * other value, the empty one included (`?watch=True`, `?watch=1`, `?watch=`).
 */
export function queryBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}
