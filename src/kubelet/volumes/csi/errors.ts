/**
 * A volume step that failed with the full text of the FailedMount / FailedAttachVolume
 * event upstream's kubelet records for it (`MountVolume.SetUp failed for volume "pv" : …`).
 */
export class MountStepError extends Error {
  constructor(
    /** the whole event message */
    readonly eventMessage: string,
    /** the event reason (`FailedMount`, `FailedAttachVolume`) */
    readonly reason = 'FailedMount',
    /** a wait that is part of the normal course (the volume is not attached yet): retried without an event */
    readonly quiet = false,
  ) {
    super(eventMessage);
    this.name = 'MountStepError';
  }
}
