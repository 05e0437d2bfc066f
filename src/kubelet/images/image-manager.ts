/**
 * EnsureImageExists: check the image per imagePullPolicy, pull with back-off, and
 * record upstream's events (Pulling, Pulled, Failed, BackOff, ErrImageNeverPull,
 * InspectFailed).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/images/image_manager.go
 */
import type { Container, Pod, Secret } from 'kubernetes-types/core/v1.js';
import type { AuthConfig, PodSandboxConfig, Runtime } from '../../cri/api.js';
import type { EventRecorder } from '../../client/events.js';
import type { Clock } from '../clock.js';
import { formatDuration } from '../clock.js';
import { containerFieldPath, podRef } from '../container/runtime.js';
import { Msg, Reason, WaitingReason } from '../events.js';
import { criErrorString } from '../kuberuntime/errors.js';
import { Backoff } from '../util/backoff.js';
import { applyDefaultImageTag, parseImageReference } from './reference.js';

export type ImageResult = { ok: true; imageRef: string } | { ok: false; reason: string; message: string };

export class ImageManager {
  readonly backoff: Backoff;

  constructor(
    private readonly runtime: Runtime,
    private readonly recorder: EventRecorder,
    private readonly clock: Clock,
    private readonly getSecret?: (ns: string, name: string) => Promise<Secret | undefined>,
  ) {
    this.backoff = new Backoff(clock, 10_000, 300_000);
  }

  /** Makes sure `container.image` is present, pulling it when the policy says so. */
  async ensureImageExists(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig): Promise<ImageResult> {
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
    let present: string | undefined;
    try {
      present = (await this.runtime.imageStatus(spec))?.id;
    } catch (e) {
      const msg = `Failed to inspect image ${JSON.stringify(userImage)}: ${criErrorString(e)}`;
      ev('Warning', Reason.FailedToInspectImage, msg);
      return { ok: false, reason: 'ImageInspectError', message: msg };
    }
    const policy = container.imagePullPolicy ?? defaultPullPolicy(userImage);
    const pull = policy === 'Always' || (policy === 'IfNotPresent' && !present);
    if (!pull) {
      if (present) {
        ev('Normal', Reason.PulledImage, Msg.present(userImage));
        return { ok: true, imageRef: present };
      }
      const msg = Msg.neverPull(userImage);
      ev('Warning', Reason.ErrImageNeverPullPolicy, msg);
      return { ok: false, reason: WaitingReason.ErrImageNeverPull, message: msg };
    }
    const key = `${pod.metadata?.uid}_${userImage}`;
    if (this.backoff.isInBackOffSinceUpdate(key, this.clock.now())) {
      const msg = Msg.backOffPull(userImage);
      ev('Normal', Reason.BackOffPullImage, msg);
      return { ok: false, reason: WaitingReason.ImagePullBackOff, message: msg };
    }
    ev('Normal', Reason.PullingImage, Msg.pulling(userImage));
    const start = this.clock.now();
    try {
      const auth = await this.authFor(pod, image);
      const ref = await this.runtime.pullImage(spec, auth, sandboxConfig);
      const took = this.clock.now() - start;
      const size = (await this.runtime.imageStatus({ image: ref }).catch(() => undefined))?.size ?? 0;
      ev('Normal', Reason.PulledImage, Msg.pulled(userImage, formatDuration(took), formatDuration(took), size));
      this.backoff.gc();
      return { ok: true, imageRef: ref };
    } catch (e) {
      const err = criErrorString(e);
      ev('Warning', Reason.FailedToPullImage, Msg.pullFailed(userImage, err));
      this.backoff.next(key, this.clock.now());
      return { ok: false, reason: WaitingReason.ErrImagePull, message: err };
    }
  }

  /** Credentials from the pod's imagePullSecrets (kubernetes.io/dockerconfigjson) for the image's registry. */
  private async authFor(pod: Pod, image: string): Promise<AuthConfig | undefined> {
    const secrets = pod.spec?.imagePullSecrets ?? [];
    if (!secrets.length || !this.getSecret) return undefined;
    const domain = parseImageReference(image).domain;
    const hosts = domain === 'docker.io' ? ['docker.io', 'index.docker.io', 'https://index.docker.io/v1/', 'registry-1.docker.io'] : [domain];
    for (const ref of secrets) {
      if (!ref.name) continue;
      const s = await this.getSecret(pod.metadata?.namespace ?? '', ref.name);
      const raw = s?.data?.['.dockerconfigjson'] ?? s?.data?.['.dockercfg'];
      if (!raw) continue;
      try {
        const cfg = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as { auths?: Record<string, AuthConfig> } & Record<string, AuthConfig>;
        const auths = cfg.auths ?? cfg;
        for (const [k, v] of Object.entries(auths)) {
          const host = k.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
          if (hosts.includes(k) || hosts.includes(host)) return { ...v, serverAddress: host };
        }
      } catch {
        // malformed secret: ignored, as upstream's keyring does
      }
    }
    return undefined;
  }
}

/** Upstream defaulting: Always for `:latest` or no tag, else IfNotPresent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  try {
    const r = parseImageReference(image);
    if (r.digest) return 'IfNotPresent';
    return !r.tag || r.tag === 'latest' ? 'Always' : 'IfNotPresent';
  } catch {
    return 'IfNotPresent';
  }
}
