// https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/data-sources/virtual_environment_nodes
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface DataProxmoxVirtualEnvironmentNodesConfig extends cdktf.TerraformMetaArguments {
  /**
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/data-sources/virtual_environment_nodes#id DataProxmoxVirtualEnvironmentNodes#id}
  *
  * Please be aware that the id field is automatically added to all resources in Terraform providers using a Terraform provider SDK version below 2.
  * If you experience problems setting this value it might not be settable. Please take a look at the provider documentation to ensure it should be settable.
  */
  readonly id?: string;
}

/**
* Represents a {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/data-sources/virtual_environment_nodes proxmox_virtual_environment_nodes}
*/
export class DataProxmoxVirtualEnvironmentNodes extends cdktf.TerraformDataSource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "proxmox_virtual_environment_nodes";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a DataProxmoxVirtualEnvironmentNodes resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the DataProxmoxVirtualEnvironmentNodes to import
  * @param importFromId The id of the existing DataProxmoxVirtualEnvironmentNodes that should be imported. Refer to the {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/data-sources/virtual_environment_nodes#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the DataProxmoxVirtualEnvironmentNodes to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "proxmox_virtual_environment_nodes", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/bpg/proxmox/0.111.1/docs/data-sources/virtual_environment_nodes proxmox_virtual_environment_nodes} Data Source
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options DataProxmoxVirtualEnvironmentNodesConfig = {}
  */
  public constructor(scope: Construct, id: string, config: DataProxmoxVirtualEnvironmentNodesConfig = {}) {
    super(scope, id, {
      terraformResourceType: 'proxmox_virtual_environment_nodes',
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
    this._id = config.id;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // cpu_count - computed: true, optional: false, required: false
  public get cpuCount() {
    return this.getNumberListAttribute('cpu_count');
  }

  // cpu_utilization - computed: true, optional: false, required: false
  public get cpuUtilization() {
    return this.getNumberListAttribute('cpu_utilization');
  }

  // id - computed: true, optional: true, required: false
  private _id?: string; 
  public get id() {
    return this.getStringAttribute('id');
  }
  public set id(value: string) {
    this._id = value;
  }
  public resetId() {
    this._id = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get idInput() {
    return this._id;
  }

  // memory_available - computed: true, optional: false, required: false
  public get memoryAvailable() {
    return this.getNumberListAttribute('memory_available');
  }

  // memory_used - computed: true, optional: false, required: false
  public get memoryUsed() {
    return this.getNumberListAttribute('memory_used');
  }

  // names - computed: true, optional: false, required: false
  public get names() {
    return this.getListAttribute('names');
  }

  // online - computed: true, optional: false, required: false
  private _online = new cdktf.BooleanList(this, "online", false);
  public get online() {
    return this._online;
  }

  // ssl_fingerprints - computed: true, optional: false, required: false
  public get sslFingerprints() {
    return this.getListAttribute('ssl_fingerprints');
  }

  // support_levels - computed: true, optional: false, required: false
  public get supportLevels() {
    return this.getListAttribute('support_levels');
  }

  // uptime - computed: true, optional: false, required: false
  public get uptime() {
    return this.getNumberListAttribute('uptime');
  }

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      id: cdktf.stringToTerraform(this._id),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      id: {
        value: cdktf.stringToHclTerraform(this._id),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
