/** ProxmoxNodeTemplate writes the rendered image download and template VM, the VM imported from the download. */
import { ProxmoxNodeTemplate } from '../../constructs/proxmox-node-template';
import { renderInstance } from '../../modules/rendering/instance';
import { exampleLab } from '../management/synth';
import { resourcesOf, synthJson } from './support';

describe('ProxmoxNodeTemplate', () => {
  const instance = exampleLab().proxmox.instances.find((i) => !('templateID' in i.template) && i.images.length > 0)!;
  const template = renderInstance(instance, []).templates[0];

  it('writes exactly the rendered download and VM, under the rendered id', () => {
    const json = synthJson((stack) => new ProxmoxNodeTemplate(stack, template.id, { template }));
    const [[downloadId, d]] = Object.entries(resourcesOf(json, 'proxmox_download_file'));
    expect(downloadId).toMatch(new RegExp(`^${template.id.replace(/\./g, '')}_image_[0-9A-F]{8}$`));
    expect(d).toEqual({
      node_name: template.node,
      datastore_id: template.download.datastoreId,
      content_type: 'import',
      url: template.download.url,
      file_name: template.download.fileName,
      ...(template.download.checksum ? { checksum: template.download.checksum, checksum_algorithm: template.download.checksumAlgorithm } : {}),
      overwrite: true,
      overwrite_unmanaged: true,
    });
    const [[, vm]] = Object.entries(resourcesOf(json, 'proxmox_virtual_environment_vm'));
    expect({
      node: vm.node_name,
      vmId: vm.vm_id,
      name: vm.name,
      description: vm.description,
      tags: vm.tags,
      pool: vm.pool_id,
      template: vm.template,
      started: vm.started,
    }).toEqual({
      node: template.node,
      vmId: template.vmId,
      name: template.vm.name,
      description: template.vm.description,
      tags: template.vm.tags,
      pool: template.vm.poolId,
      template: true,
      started: false,
    });
    expect(vm.disk).toEqual([
      {
        interface: 'scsi0',
        datastore_id: template.vm.diskStorage,
        import_from: `\${proxmox_download_file.${downloadId}.id}`,
        size: template.vm.diskSizeGiB,
        discard: 'on',
        iothread: true,
      },
    ]);
    expect(vm.network_device).toBeUndefined();
  });

  it('writes the templates pool as the reference it is given', () => {
    const json = synthJson(
      (stack) => new ProxmoxNodeTemplate(stack, template.id, { template, poolReference: '${proxmox_virtual_environment_pool.pool-templates.pool_id}' }),
    );
    expect(Object.values(resourcesOf(json, 'proxmox_virtual_environment_vm'))[0].pool_id).toBe('${proxmox_virtual_environment_pool.pool-templates.pool_id}');
  });
});
