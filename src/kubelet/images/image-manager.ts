/**
 * EnsureImageExists: check the image per imagePullPolicy, pull with back-off, and
 * record upstream's events (Pulling, Pulled, Failed, BackOff, ErrImageNeverPull,
 * InspectFailed).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/images/image_manager.go
 */
import type { PodTraceSink } from '../../trace/recorder.js';
import { traceStep } from '../trace.js';
import type { Container, Pod, Secret } from 'kubernetes-types/core/v1.js';
import type { AuthConfig, Image, PodSandboxConfig, Runtime } from '../../cri/api.js';
import type { EventRecorder } from '../../client/events.js';
import type { Clock } from '../../util/clock.js';
import { formatDuration } from '../../apimachinery/duration.js';
import { containerFieldPath, podRef } from '../container/runtime.js';
import { Msg, Reason, WaitingReason } from '../events.js';
import { criErrorString } from '../kuberuntime/errors.js';
import { Backoff } from '../util/backoff.js';
import { applyDefaultImageTag, parseImageReference } from '../../util/image-reference.js';

/**
 * The outcome of {@link ImageManager.ensureImageExists}. A success carries the
 * runtime's ImageStatus answer when it made one (`image`: its user, so the caller need
 * not ask again). A failure may carry `retryAt` (ms since the epoch): when the pull
 * back-off of this image ends, so the pod worker can come back exactly then.
 */
type ImageResult = { ok: true; imageRef: string; image?: Image } | { ok: false; reason: string; message: string; retryAt?: number };

export class ImageManager {
  readonly backoff: Backoff;
  /** the pod creation trace (src/trace): the image check and the pull are steps */
  trace?: PodTraceSink;

  constructor(
    private readonly runtime: Runtime,
    private readonly recorder: EventRecorder,
    private readonly clock: Clock,
    private readonly getSecret?: (ns: string, name: string) => Promise<Secret | undefined>,
  ) {
    this.backoff = new Backoff(clock, 10_000, 300_000);
  }

  /**
   * Starts the ImageStatus call {@link ensureImageExists} will make for `container`,
   * so it can run while the pod sandbox is being created; the answer is handed back
   * through `ensureImageExists(…, early)`. Resolves to undefined when the call fails or
   * the image name is invalid (ensureImageExists then asks again and reports).
   */
  prefetchStatus(container: Container): Promise<Image | undefined> {
    const userImage = container.image ?? '';
    try {
      const image = applyDefaultImageTag(userImage);
      return this.runtime.imageStatus({ image, userSpecifiedImage: userImage, annotations: {} }).catch(() => undefined);
    } catch {
      return Promise.resolve(undefined);
    }
  }

  /**
   * Makes sure `container.image` is present, pulling it when the policy says so.
   * @param early the answer of {@link prefetchStatus} for this container, if one was started
   */
  async ensureImageExists(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig, early?: Promise<Image | undefined>): Promise<ImageResult> {
    const fieldPath = containerFieldPath(pod, container.name);
    const ev = (type: 'Normal' | 'Warning', reason: string, msg: string): void => this.recorder.event(podRef(pod), type, reason, msg, fieldPath);
    const userImage = container.image ?? '';
    let image: string;
    try {
      image = applyDefaultImageTag(userImage);
    } catch (e) {
      const msg = Msg.invalidImage(userImage, (e as Error).message);
      ev('Warning', Reason.FailedToInspectImage, msg);
      return { ok: false, reason: WaitingReason.InvalidImageName, message: msg };
    }
    const spec = { image, userSpecifiedImage: userImage, annotations: {} };
    let status: Image | undefined;
    try {
      status = (early && (await early)) || (await this.runtime.imageStatus(spec));
    } catch (e) {
      const msg = `Failed to inspect image ${JSON.stringify(userImage)}: ${criErrorString(e)}`;
      ev('Warning', Reason.FailedToInspectImage, msg);
      return { ok: false, reason: 'ImageInspectError', message: msg };
    }
    const present = status?.id;
    traceStep(this.trace, pod, 'ImageCheck', { detail: userImage });
    const policy = container.imagePullPolicy ?? defaultPullPolicy(userImage);
    const pull = policy === 'Always' || (policy === 'IfNotPresent' && !present);
    if (!pull) {
      if (present) {
        ev('Normal', Reason.PulledImage, Msg.present(userImage));
        return { ok: true, imageRef: present, image: status };
      }
      const msg = Msg.neverPull(userImage);
      ev('Warning', Reason.ErrImageNeverPullPolicy, msg);
      return { ok: false, reason: WaitingReason.ErrImageNeverPull, message: msg };
    }
    const key = `${pod.metadata?.uid}_${userImage}`;
    if (this.backoff.isInBackOffSinceUpdate(key, this.clock.now())) {
      const msg = Msg.backOffPull(userImage);
      ev('Normal', Reason.BackOffPullImage, msg);
      return { ok: false, reason: WaitingReason.ImagePullBackOff, message: msg, retryAt: this.retryAt(key) };
    }
    ev('Normal', Reason.PullingImage, Msg.pulling(userImage));
    const start = this.clock.now();
    try {
      const ref = await this.pullWithCredentials(spec, await this.credentialsFor(pod, image), sandboxConfig);
      const took = this.clock.now() - start;
      const pulled = await this.runtime.imageStatus({ image: ref }).catch(() => undefined);
      ev('Normal', Reason.PulledImage, Msg.pulled(userImage, formatDuration(took), formatDuration(took), pulled?.size ?? 0));
      this.backoff.gc();
      traceStep(this.trace, pod, 'PullImage', { detail: userImage });
      return pulled ? { ok: true, imageRef: ref, image: pulled } : { ok: true, imageRef: ref };
    } catch (e) {
      const err = criErrorString(e);
      ev('Warning', Reason.FailedToPullImage, Msg.pullFailed(userImage, err));
      this.backoff.next(key, this.clock.now());
      return { ok: false, reason: WaitingReason.ErrImagePull, message: err, retryAt: this.retryAt(key) };
    }
  }

  /** When the pull back-off of `key` ends (ms since the epoch). */
  private retryAt(key: string): number {
    return (this.backoff.lastUpdate(key) ?? this.clock.now()) + this.backoff.get(key);
  }

  /**
   * Upstream PullImage with a keyring: each matching credential in turn until one pulls
   * (the last error otherwise); anonymously when none matches.
   */
  private async pullWithCredentials(
    spec: { image: string; userSpecifiedImage: string; annotations: Record<string, string> },
    creds: AuthConfig[],
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    if (!creds.length) return this.runtime.pullImage(spec, undefined, sandboxConfig);
    let last: unknown;
    for (const auth of creds) {
      try {
        return await this.runtime.pullImage(spec, auth, sandboxConfig);
      } catch (e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * Credentials from the pod's imagePullSecrets (kubernetes.io/dockerconfigjson, or the
   * legacy .dockercfg) whose key matches the image, as upstream's BasicDockerKeyring:
   * a key is `host[/path]` (scheme and a `/v1/` or `/v2/` prefix ignored) matching the
   * image's registry host and, when it has one, a prefix of the image's path; `auth` is
   * decoded into username and password. No server address is sent (as upstream).
   */
  private async credentialsFor(pod: Pod, image: string): Promise<AuthConfig[]> {
    const secrets = pod.spec?.imagePullSecrets ?? [];
    if (!secrets.length || !this.getSecret) return [];
    const ref = parseImageReference(image);
    const hosts = ref.domain === 'docker.io' ? ['docker.io', 'index.docker.io', 'registry-1.docker.io'] : [ref.domain];
    const out: AuthConfig[] = [];
    for (const r of secrets) {
      if (!r.name) continue;
      const s = await this.getSecret(pod.metadata?.namespace ?? '', r.name);
      const raw = s?.data?.['.dockerconfigjson'] ?? s?.data?.['.dockercfg'];
      if (!raw) continue;
      let auths: Record<string, { username?: string; password?: string; auth?: string; identitytoken?: string; registrytoken?: string }>;
      try {
        const cfg = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as Record<string, unknown>;
        auths = (s?.data?.['.dockerconfigjson'] ? cfg.auths : cfg) as typeof auths;
      } catch {
        continue; // malformed secret: ignored, as upstream's keyring does
      }
      for (const [key, v] of Object.entries(auths ?? {})) {
        if (!keyMatches(key, hosts, ref.path)) continue;
        let { username, password } = v;
        if (!username && v.auth) {
          const dec = Buffer.from(v.auth, 'base64').toString('utf8');
          const i = dec.indexOf(':');
          if (i > 0) [username, password] = [dec.slice(0, i), dec.slice(i + 1)];
        }
        out.push({
          ...(username ? { username } : {}),
          ...(password ? { password } : {}),
          ...(v.identitytoken ? { identityToken: v.identitytoken } : {}),
          ...(v.registrytoken ? { registryToken: v.registrytoken } : {}),
        });
      }
    }
    return out;
  }
}

/** Does keyring key `key` (e.g. `https://index.docker.io/v1/`, `127.0.0.1:5000/team`) cover an image at `hosts`/`path`? */
export function keyMatches(key: string, hosts: readonly string[], path: string): boolean {
  let u: URL;
  try {
    u = new URL(/^https?:\/\//.test(key) ? key : `https://${key}`);
  } catch {
    return false;
  }
  if (!hosts.includes(u.host)) return false;
  let p = decodeURIComponent(u.pathname);
  if (p.startsWith('/v2/') || p.startsWith('/v1/')) p = p.slice(3);
  p = p.replace(/^\/+|\/+$/g, '');
  return !p || path === p || path.startsWith(`${p}/`);
}

/** Upstream defaulting: Always for `:latest` or no tag, else IfNotPresent. */
function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  try {
    const r = parseImageReference(image);
    if (r.digest) return 'IfNotPresent';
    return !r.tag || r.tag === 'latest' ? 'Always' : 'IfNotPresent';
  } catch {
    return 'IfNotPresent';
  }
}
