/**
 * A node-private containerd for the kubelet's CRI: `startManagedContainerd` plus the
 * pieces it is made of (config, CNI, registries, image import).
 */
export { startManagedContainerd, writeContainerdFiles, findExecutable, ManagedContainerdError } from './supervisor.js';
export type { ManagedContainerd, ManagedContainerdOptions } from './supervisor.js';
export { containerdConfig, containerdPaths, type ContainerdPaths } from './config.js';
export { cniConflist, detectCNIBinDir, CNIConfigError, CNI_BIN_DIRS } from './cni.js';
export { parseRegistries, hostsFiles, authToml, RegistriesConfigError } from './registries.js';
export { importLayout, hasImage, CtrError } from './images.js';
export { layoutToArchive, normalizeRef, OCILayoutError } from './oci-archive.js';
