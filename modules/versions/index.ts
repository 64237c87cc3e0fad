/**
 * Every version pvekaas pins, and what follows from them, by concern:
 * - ./pins: the one table (./toolchain.json) and what derives from it (`pinnedVersions`, CRD
 *   directories, the twin's controller modules); why each version is pinned.
 * - ./providers: the Cluster API providers and the facts about their releases (contracts, builds).
 * - ./images: the Helm charts and container images the management plane installs.
 * - ./guard: the version guard (`checkVersions`, `resolveVersions`); ./lab-guard: the guard of a lab (`versionGuard`).
 * - ./cni (tenant charts), ./layout (names and namespaces), ./mirror (air-gapped labs).
 */
export * from './pins';
export * from './providers';
export * from './images';
export * from './guard';
export * from './lab-guard';
export * from './support';
export * from './tenant-range';
