/** The Proxmox VE API simulator (see docs/proxmox.md). */
export { PveSimulator, type SimulatorOptions, type InstanceSnapshot, type RequestRecord, type SimVmView } from './simulator';
export { readIso, cloudInitFiles } from './iso9660';
export { FaultPlan, type FaultSpec, type RouteFault, type TaskFault } from './faults';
export { SimulatedInstance, type InstanceSpec, type RemoteImage, type SimNodeSpec, type SimStorageSpec } from './instance';
export { instanceSpec, instanceSpecsFromLab } from './lab';
export { privilegesOf, BUILTIN_ROLES } from './permissions';
