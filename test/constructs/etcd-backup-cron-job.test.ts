/** EtcdBackupCronJob backs up the given etcd on the given schedule with the given images; S3 keys from sensitive variables only. */
import { EtcdBackupCronJob } from '../../constructs/etcd-backup-cron-job';
import { kubernetes, resourcesOf, synthJson } from './support';

describe('EtcdBackupCronJob', () => {
  it('writes the schedule, images and etcd endpoint it is given, and no key in the files', () => {
    const target = { schedule: '17 3 * * *', retention: 7, s3: { endpoint: 'https://s3.lab.example', bucket: 'etcd', region: 'eu', prefix: 'lab/' } };
    const json = synthJson(
      (stack) =>
        new EtcdBackupCronJob(stack, 'datastore-backup', {
          provider: kubernetes(stack),
          namespace: 'kamaji-system',
          etcdName: 'kamaji-etcd',
          clusterDomain: 'cluster.local',
          target,
          etcdImage: 'registry.example/etcd:v3',
          rcloneImage: 'registry.example/rclone:1',
        }),
    );
    const [[, cron]] = Object.entries(resourcesOf(json, 'kubernetes_cron_job_v1'));
    expect(cron.metadata).toMatchObject({ name: 'kamaji-etcd-backup', namespace: 'kamaji-system' });
    expect(cron.spec.schedule).toBe('17 3 * * *');
    const pod = cron.spec.job_template.spec.template.spec;
    const images = [...pod.init_container, ...pod.container].map((c: any) => c.image);
    expect(images).toContain('registry.example/etcd:v3');
    expect(images).toContain('registry.example/rclone:1');
    expect(JSON.stringify(pod)).toContain('https://kamaji-etcd-client.kamaji-system.svc.cluster.local:2379');
    const [[, secret]] = Object.entries(resourcesOf(json, 'kubernetes_secret_v1'));
    expect(Object.values(secret.data).every((v) => /^\$\{var\.\w+\}$/.test(v as string))).toBe(true);
    for (const v of Object.values(json.variable) as any[]) expect(v.sensitive).toBe(true);
  });
});
