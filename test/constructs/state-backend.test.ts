/** addStateBackend writes a local state file per stack, or one Terraform Cloud workspace per stack (with its project). */
import { addStateBackend, workspaceName } from '../../constructs/state-backend';
import { exampleLab } from '../management/synth';
import { synthJson } from './support';

describe('addStateBackend', () => {
  const delivery = exampleLab().delivery;

  it('a local backend: <stateDirFromStack>/<stack>.tfstate', () => {
    const json = synthJson((stack) =>
      addStateBackend(stack, { stackName: 'tenant-a', delivery: { ...delivery, backend: 'local' }, stateDirFromStack: '../../../state' }),
    );
    expect(json.terraform.backend).toEqual({ local: { path: '../../../state/tenant-a.tfstate' } });
  });

  it('a cloud backend: the organization, hostname, and the workspace <prefix>-<stack> in its project', () => {
    const cloud = { organization: 'lab', hostname: 'tfe.lab.example', workspacePrefix: 'pvekaas', project: 'kaas' };
    const json = synthJson((stack) =>
      addStateBackend(stack, { stackName: 'management', delivery: { ...delivery, backend: 'cloud', cloud } as typeof delivery, stateDirFromStack: 'unused' }),
    );
    expect(json.terraform.cloud).toEqual({
      organization: 'lab',
      hostname: 'tfe.lab.example',
      workspaces: { name: workspaceName('pvekaas', 'management'), project: 'kaas' },
    });
    expect(json.terraform.backend).toBeUndefined();
  });
});
