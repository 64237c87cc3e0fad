// https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface StorageDirectoryConfig extends cdktf.TerraformMetaArguments {
  /**
  * The content types that can be stored on this storage. Valid values: `backup` (VM backups), `images` (VM disk images), `import` (VM disk images for import), `iso` (ISO images), `rootdir` (container root directories), `snippets` (cloud-init, hook scripts, etc.), `vztmpl` (container templates).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#content StorageDirectory#content}
  */
  readonly content?: string[];
  /**
  * Create the base directory if it doesn't exist.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#create_base_path StorageDirectory#create_base_path}
  */
  readonly createBasePath?: boolean | cdktf.IResolvable;
  /**
  * Populate the directory with the default structure.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#create_subdirs StorageDirectory#create_subdirs}
  */
  readonly createSubdirs?: boolean | cdktf.IResolvable;
  /**
  * Whether the storage is disabled.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#disable StorageDirectory#disable}
  */
  readonly disable?: boolean | cdktf.IResolvable;
  /**
  * The unique identifier of the storage.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#id StorageDirectory#id}
  *
  * Please be aware that the id field is automatically added to all resources in Terraform providers using a Terraform provider SDK version below 2.
  * If you experience problems setting this value it might not be settable. Please take a look at the provider documentation to ensure it should be settable.
  */
  readonly id: string;
  /**
  * A list of nodes where this storage is available.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#nodes StorageDirectory#nodes}
  */
  readonly nodes?: string[];
  /**
  * The path to the directory on the Proxmox node.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#path StorageDirectory#path}
  */
  readonly path: string;
  /**
  * The preallocation mode for raw and qcow2 images.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#preallocation StorageDirectory#preallocation}
  */
  readonly preallocation?: string;
  /**
  * Whether the storage is shared across all nodes.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#shared StorageDirectory#shared}
  */
  readonly shared?: boolean | cdktf.IResolvable;
  /**
  * backups block
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#backups StorageDirectory#backups}
  */
  readonly backups?: StorageDirectoryBackups;
}
export interface StorageDirectoryBackups {
  /**
  * Specifies if all backups should be kept, regardless of their age. When set to true, other keep_* attributes must not be set.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_all StorageDirectory#keep_all}
  */
  readonly keepAll?: boolean | cdktf.IResolvable;
  /**
  * The number of daily backups to keep. Older backups will be removed.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_daily StorageDirectory#keep_daily}
  */
  readonly keepDaily?: number;
  /**
  * The number of hourly backups to keep. Older backups will be removed.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_hourly StorageDirectory#keep_hourly}
  */
  readonly keepHourly?: number;
  /**
  * Specifies the number of the most recent backups to keep, regardless of their age.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_last StorageDirectory#keep_last}
  */
  readonly keepLast?: number;
  /**
  * The number of monthly backups to keep. Older backups will be removed.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_monthly StorageDirectory#keep_monthly}
  */
  readonly keepMonthly?: number;
  /**
  * The number of weekly backups to keep. Older backups will be removed.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_weekly StorageDirectory#keep_weekly}
  */
  readonly keepWeekly?: number;
  /**
  * The number of yearly backups to keep. Older backups will be removed.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#keep_yearly StorageDirectory#keep_yearly}
  */
  readonly keepYearly?: number;
  /**
  * The maximum number of protected backups per guest. Use '-1' for unlimited.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#max_protected_backups StorageDirectory#max_protected_backups}
  */
  readonly maxProtectedBackups?: number;
}

export function storageDirectoryBackupsToTerraform(struct?: StorageDirectoryBackups | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  return {
    keep_all: cdktf.booleanToTerraform(struct!.keepAll),
    keep_daily: cdktf.numberToTerraform(struct!.keepDaily),
    keep_hourly: cdktf.numberToTerraform(struct!.keepHourly),
    keep_last: cdktf.numberToTerraform(struct!.keepLast),
    keep_monthly: cdktf.numberToTerraform(struct!.keepMonthly),
    keep_weekly: cdktf.numberToTerraform(struct!.keepWeekly),
    keep_yearly: cdktf.numberToTerraform(struct!.keepYearly),
    max_protected_backups: cdktf.numberToTerraform(struct!.maxProtectedBackups),
  }
}


export function storageDirectoryBackupsToHclTerraform(struct?: StorageDirectoryBackups | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  const attrs = {
    keep_all: {
      value: cdktf.booleanToHclTerraform(struct!.keepAll),
      isBlock: false,
      type: "simple",
      storageClassType: "boolean",
    },
    keep_daily: {
      value: cdktf.numberToHclTerraform(struct!.keepDaily),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    keep_hourly: {
      value: cdktf.numberToHclTerraform(struct!.keepHourly),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    keep_last: {
      value: cdktf.numberToHclTerraform(struct!.keepLast),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    keep_monthly: {
      value: cdktf.numberToHclTerraform(struct!.keepMonthly),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    keep_weekly: {
      value: cdktf.numberToHclTerraform(struct!.keepWeekly),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    keep_yearly: {
      value: cdktf.numberToHclTerraform(struct!.keepYearly),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    max_protected_backups: {
      value: cdktf.numberToHclTerraform(struct!.maxProtectedBackups),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
  };

  // remove undefined attributes
  return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined));
}

export class StorageDirectoryBackupsOutputReference extends cdktf.ComplexObject {
  private isEmptyObject = false;
  private resolvableValue?: cdktf.IResolvable;

  /**
  * @param terraformResource The parent resource
  * @param terraformAttribute The attribute on the parent resource this class is referencing
  */
  public constructor(terraformResource: cdktf.IInterpolatingParent, terraformAttribute: string) {
    super(terraformResource, terraformAttribute, false);
  }

  public get internalValue(): StorageDirectoryBackups | cdktf.IResolvable | undefined {
    if (this.resolvableValue) {
      return this.resolvableValue;
    }
    let hasAnyValues = this.isEmptyObject;
    const internalValueResult: any = {};
    if (this._keepAll !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepAll = this._keepAll;
    }
    if (this._keepDaily !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepDaily = this._keepDaily;
    }
    if (this._keepHourly !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepHourly = this._keepHourly;
    }
    if (this._keepLast !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepLast = this._keepLast;
    }
    if (this._keepMonthly !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepMonthly = this._keepMonthly;
    }
    if (this._keepWeekly !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepWeekly = this._keepWeekly;
    }
    if (this._keepYearly !== undefined) {
      hasAnyValues = true;
      internalValueResult.keepYearly = this._keepYearly;
    }
    if (this._maxProtectedBackups !== undefined) {
      hasAnyValues = true;
      internalValueResult.maxProtectedBackups = this._maxProtectedBackups;
    }
    return hasAnyValues ? internalValueResult : undefined;
  }

  public set internalValue(value: StorageDirectoryBackups | cdktf.IResolvable | undefined) {
    if (value === undefined) {
      this.isEmptyObject = false;
      this.resolvableValue = undefined;
      this._keepAll = undefined;
      this._keepDaily = undefined;
      this._keepHourly = undefined;
      this._keepLast = undefined;
      this._keepMonthly = undefined;
      this._keepWeekly = undefined;
      this._keepYearly = undefined;
      this._maxProtectedBackups = undefined;
    }
    else if (cdktf.Tokenization.isResolvable(value)) {
      this.isEmptyObject = false;
      this.resolvableValue = value;
    }
    else {
      this.isEmptyObject = Object.keys(value).length === 0;
      this.resolvableValue = undefined;
      this._keepAll = value.keepAll;
      this._keepDaily = value.keepDaily;
      this._keepHourly = value.keepHourly;
      this._keepLast = value.keepLast;
      this._keepMonthly = value.keepMonthly;
      this._keepWeekly = value.keepWeekly;
      this._keepYearly = value.keepYearly;
      this._maxProtectedBackups = value.maxProtectedBackups;
    }
  }

  // keep_all - computed: true, optional: true, required: false
  private _keepAll?: boolean | cdktf.IResolvable; 
  public get keepAll() {
    return this.getBooleanAttribute('keep_all');
  }
  public set keepAll(value: boolean | cdktf.IResolvable) {
    this._keepAll = value;
  }
  public resetKeepAll() {
    this._keepAll = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepAllInput() {
    return this._keepAll;
  }

  // keep_daily - computed: false, optional: true, required: false
  private _keepDaily?: number; 
  public get keepDaily() {
    return this.getNumberAttribute('keep_daily');
  }
  public set keepDaily(value: number) {
    this._keepDaily = value;
  }
  public resetKeepDaily() {
    this._keepDaily = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepDailyInput() {
    return this._keepDaily;
  }

  // keep_hourly - computed: false, optional: true, required: false
  private _keepHourly?: number; 
  public get keepHourly() {
    return this.getNumberAttribute('keep_hourly');
  }
  public set keepHourly(value: number) {
    this._keepHourly = value;
  }
  public resetKeepHourly() {
    this._keepHourly = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepHourlyInput() {
    return this._keepHourly;
  }

  // keep_last - computed: false, optional: true, required: false
  private _keepLast?: number; 
  public get keepLast() {
    return this.getNumberAttribute('keep_last');
  }
  public set keepLast(value: number) {
    this._keepLast = value;
  }
  public resetKeepLast() {
    this._keepLast = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepLastInput() {
    return this._keepLast;
  }

  // keep_monthly - computed: false, optional: true, required: false
  private _keepMonthly?: number; 
  public get keepMonthly() {
    return this.getNumberAttribute('keep_monthly');
  }
  public set keepMonthly(value: number) {
    this._keepMonthly = value;
  }
  public resetKeepMonthly() {
    this._keepMonthly = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepMonthlyInput() {
    return this._keepMonthly;
  }

  // keep_weekly - computed: false, optional: true, required: false
  private _keepWeekly?: number; 
  public get keepWeekly() {
    return this.getNumberAttribute('keep_weekly');
  }
  public set keepWeekly(value: number) {
    this._keepWeekly = value;
  }
  public resetKeepWeekly() {
    this._keepWeekly = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepWeeklyInput() {
    return this._keepWeekly;
  }

  // keep_yearly - computed: false, optional: true, required: false
  private _keepYearly?: number; 
  public get keepYearly() {
    return this.getNumberAttribute('keep_yearly');
  }
  public set keepYearly(value: number) {
    this._keepYearly = value;
  }
  public resetKeepYearly() {
    this._keepYearly = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get keepYearlyInput() {
    return this._keepYearly;
  }

  // max_protected_backups - computed: false, optional: true, required: false
  private _maxProtectedBackups?: number; 
  public get maxProtectedBackups() {
    return this.getNumberAttribute('max_protected_backups');
  }
  public set maxProtectedBackups(value: number) {
    this._maxProtectedBackups = value;
  }
  public resetMaxProtectedBackups() {
    this._maxProtectedBackups = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get maxProtectedBackupsInput() {
    return this._maxProtectedBackups;
  }
}

/**
* Represents a {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory proxmox_storage_directory}
*/
export class StorageDirectory extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "proxmox_storage_directory";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a StorageDirectory resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the StorageDirectory to import
  * @param importFromId The id of the existing StorageDirectory that should be imported. Refer to the {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the StorageDirectory to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "proxmox_storage_directory", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/resources/storage_directory proxmox_storage_directory} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options StorageDirectoryConfig
  */
  public constructor(scope: Construct, id: string, config: StorageDirectoryConfig) {
    super(scope, id, {
      terraformResourceType: 'proxmox_storage_directory',
      terraformGeneratorMetadata: {
        providerName: 'proxmox',
        providerVersion: '0.111.1',
        providerVersionConstraint: '0.111.1'
      },
      provider: config.provider,
      dependsOn: config.dependsOn,
      count: config.count,
      lifecycle: config.lifecycle,
      provisioners: config.provisioners,
      connection: config.connection,
      forEach: config.forEach
    });
    this._content = config.content;
    this._createBasePath = config.createBasePath;
    this._createSubdirs = config.createSubdirs;
    this._disable = config.disable;
    this._id = config.id;
    this._nodes = config.nodes;
    this._path = config.path;
    this._preallocation = config.preallocation;
    this._shared = config.shared;
    this._backups.internalValue = config.backups;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // content - computed: true, optional: true, required: false
  private _content?: string[]; 
  public get content() {
    return cdktf.Fn.tolist(this.getListAttribute('content'));
  }
  public set content(value: string[]) {
    this._content = value;
  }
  public resetContent() {
    this._content = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get contentInput() {
    return this._content;
  }

  // create_base_path - computed: true, optional: true, required: false
  private _createBasePath?: boolean | cdktf.IResolvable; 
  public get createBasePath() {
    return this.getBooleanAttribute('create_base_path');
  }
  public set createBasePath(value: boolean | cdktf.IResolvable) {
    this._createBasePath = value;
  }
  public resetCreateBasePath() {
    this._createBasePath = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get createBasePathInput() {
    return this._createBasePath;
  }

  // create_subdirs - computed: true, optional: true, required: false
  private _createSubdirs?: boolean | cdktf.IResolvable; 
  public get createSubdirs() {
    return this.getBooleanAttribute('create_subdirs');
  }
  public set createSubdirs(value: boolean | cdktf.IResolvable) {
    this._createSubdirs = value;
  }
  public resetCreateSubdirs() {
    this._createSubdirs = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get createSubdirsInput() {
    return this._createSubdirs;
  }

  // disable - computed: true, optional: true, required: false
  private _disable?: boolean | cdktf.IResolvable; 
  public get disable() {
    return this.getBooleanAttribute('disable');
  }
  public set disable(value: boolean | cdktf.IResolvable) {
    this._disable = value;
  }
  public resetDisable() {
    this._disable = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get disableInput() {
    return this._disable;
  }

  // id - computed: false, optional: false, required: true
  private _id?: string; 
  public get id() {
    return this.getStringAttribute('id');
  }
  public set id(value: string) {
    this._id = value;
  }
  // Temporarily expose input value. Use with caution.
  public get idInput() {
    return this._id;
  }

  // nodes - computed: true, optional: true, required: false
  private _nodes?: string[]; 
  public get nodes() {
    return cdktf.Fn.tolist(this.getListAttribute('nodes'));
  }
  public set nodes(value: string[]) {
    this._nodes = value;
  }
  public resetNodes() {
    this._nodes = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get nodesInput() {
    return this._nodes;
  }

  // path - computed: false, optional: false, required: true
  private _path?: string; 
  public get path() {
    return this.getStringAttribute('path');
  }
  public set path(value: string) {
    this._path = value;
  }
  // Temporarily expose input value. Use with caution.
  public get pathInput() {
    return this._path;
  }

  // preallocation - computed: false, optional: true, required: false
  private _preallocation?: string; 
  public get preallocation() {
    return this.getStringAttribute('preallocation');
  }
  public set preallocation(value: string) {
    this._preallocation = value;
  }
  public resetPreallocation() {
    this._preallocation = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get preallocationInput() {
    return this._preallocation;
  }

  // shared - computed: true, optional: true, required: false
  private _shared?: boolean | cdktf.IResolvable; 
  public get shared() {
    return this.getBooleanAttribute('shared');
  }
  public set shared(value: boolean | cdktf.IResolvable) {
    this._shared = value;
  }
  public resetShared() {
    this._shared = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get sharedInput() {
    return this._shared;
  }

  // backups - computed: false, optional: true, required: false
  private _backups = new StorageDirectoryBackupsOutputReference(this, "backups");
  public get backups() {
    return this._backups;
  }
  public putBackups(value: StorageDirectoryBackups) {
    this._backups.internalValue = value;
  }
  public resetBackups() {
    this._backups.internalValue = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get backupsInput() {
    return this._backups.internalValue;
  }

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      content: cdktf.listMapper(cdktf.stringToTerraform, false)(this._content),
      create_base_path: cdktf.booleanToTerraform(this._createBasePath),
      create_subdirs: cdktf.booleanToTerraform(this._createSubdirs),
      disable: cdktf.booleanToTerraform(this._disable),
      id: cdktf.stringToTerraform(this._id),
      nodes: cdktf.listMapper(cdktf.stringToTerraform, false)(this._nodes),
      path: cdktf.stringToTerraform(this._path),
      preallocation: cdktf.stringToTerraform(this._preallocation),
      shared: cdktf.booleanToTerraform(this._shared),
      backups: storageDirectoryBackupsToTerraform(this._backups.internalValue),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      content: {
        value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(this._content),
        isBlock: false,
        type: "set",
        storageClassType: "stringList",
      },
      create_base_path: {
        value: cdktf.booleanToHclTerraform(this._createBasePath),
        isBlock: false,
        type: "simple",
        storageClassType: "boolean",
      },
      create_subdirs: {
        value: cdktf.booleanToHclTerraform(this._createSubdirs),
        isBlock: false,
        type: "simple",
        storageClassType: "boolean",
      },
      disable: {
        value: cdktf.booleanToHclTerraform(this._disable),
        isBlock: false,
        type: "simple",
        storageClassType: "boolean",
      },
      id: {
        value: cdktf.stringToHclTerraform(this._id),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      nodes: {
        value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(this._nodes),
        isBlock: false,
        type: "set",
        storageClassType: "stringList",
      },
      path: {
        value: cdktf.stringToHclTerraform(this._path),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      preallocation: {
        value: cdktf.stringToHclTerraform(this._preallocation),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      shared: {
        value: cdktf.booleanToHclTerraform(this._shared),
        isBlock: false,
        type: "simple",
        storageClassType: "boolean",
      },
      backups: {
        value: storageDirectoryBackupsToHclTerraform(this._backups.internalValue),
        isBlock: true,
        type: "struct",
        storageClassType: "StorageDirectoryBackups",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
