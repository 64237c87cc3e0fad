/**
 * The day-two table (bench/upgrade.ts): what a no-outage case of the twin writes through
 * readyReport with PVEKAAS_DAY_TWO_FIGURES set, read back and laid out per pool.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dayTwoTable, readRecords } from '../../bench/upgrade';
import { readyReport, type ReadySamples } from '../twin/support';

const samples = (): ReadySamples => ({
  events: 40,
  lost: [],
  bridged: [],
  pools: new Map([
    ['tenant-a/workers', { min: 3, replicas: 3, at: 'surge' }],
    ['tenant-c/workers', { min: 4, replicas: 5, at: 'retire' }],
  ]),
  skew: [],
  notes: [],
  api: new Map([['tenant-a', { samples: 90, versions: ['v1.35.4', 'v1.36.3'], failures: ['12:00:01: socket hang up'] }]]),
});

describe('bench:upgrade, the day-two table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-day-two-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records what the Ready-Node watcher saw when PVEKAAS_DAY_TWO_FIGURES is set, and nothing otherwise', () => {
    const file = join(dir, 'figures.jsonl');
    const before = process.env.PVEKAAS_DAY_TWO_FIGURES;
    try {
      delete process.env.PVEKAAS_DAY_TWO_FIGURES;
      readyReport('unrecorded', samples(), []);
      process.env.PVEKAAS_DAY_TWO_FIGURES = file;
      const lines = readyReport('upgrade v1.35.4 → v1.36.3', samples(), [
        { step: 'surge', seconds: 41.4 },
        { step: 'retire', seconds: 17.6 },
      ]);
      expect(lines).toContain('tenant-c/workers: fewest Ready Nodes 4 (asks for 5), first seen during retire');
    } finally {
      if (before === undefined) delete process.env.PVEKAAS_DAY_TWO_FIGURES;
      else process.env.PVEKAAS_DAY_TWO_FIGURES = before;
    }
    const records = readRecords(readFileSync(file, 'utf8'));
    expect(records).toEqual([
      {
        suite: 'bench-upgrade.test.ts',
        title: 'upgrade v1.35.4 → v1.36.3',
        pools: [
          { pool: 'tenant-a/workers', fewest: 3, replicas: 3, at: 'surge' },
          { pool: 'tenant-c/workers', fewest: 4, replicas: 5, at: 'retire' },
        ],
        api: [{ tenant: 'tenant-a', samples: 90, unanswered: 1, versions: ['v1.35.4', 'v1.36.3'] }],
        steps: [
          { step: 'surge', seconds: 41 },
          { step: 'retire', seconds: 18 },
        ],
        unseen: 0,
      },
    ]);
    const table = dayTwoTable(records);
    expect(table.split('\n').slice(0, 4)).toEqual([
      '| change | pool | fewest Ready / asks | below? | first seen during |',
      '| --- | --- | --: | --- | --- |',
      '| upgrade v1.35.4 → v1.36.3 | tenant-a/workers | 3 / 3 | no | surge |',
      '| upgrade v1.35.4 → v1.36.3 | tenant-c/workers | 4 / 5 | yes | retire |',
    ]);
    expect(table).toContain(
      '- **upgrade v1.35.4 → v1.36.3** (bench-upgrade.test.ts): tenant-a API server 1 s unanswered of 90 (v1.35.4 → v1.36.3); steps: surge 41 s, retire 18 s',
    );
  });
});
