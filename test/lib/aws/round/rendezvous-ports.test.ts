import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assignMasterPorts,
  MASTER_PORT_BASE,
  MASTER_PORT_RANGE,
  preferredMasterPort,
} from '../../../../lib/aws/round/rendezvous-ports.ts';
import { allocation, runningJob } from '../support/items.ts';

const portless = { masterPort: undefined };

test('ports are unique across the cluster: jobs whose rank 0 sits on different hosts never share one', () => {
  const onH1 = runningJob('a', allocation([['h1', [0, 1]]]), portless);
  const onH2 = runningJob('b', allocation([['h2', [0, 1]]]), portless);
  const spread = runningJob(
    'c',
    allocation([
      ['h1', [2, 3]],
      ['h2', [2, 3]],
    ]),
    portless,
  );
  const ports = assignMasterPorts([onH1, onH2, spread]);
  assert.equal(new Set(ports.values()).size, 3);
  for (const port of ports.values())
    assert.ok(port >= MASTER_PORT_BASE && port < MASTER_PORT_BASE + MASTER_PORT_RANGE && port < 32768);
});

test('a kept port stays and is never handed to another job, even one preferring it', () => {
  const preferred = preferredMasterPort('new', 1);
  const kept = runningJob('kept', allocation([['h9', [0]]]), { masterPort: preferred });
  const fresh = runningJob('new', allocation([['h1', [0]]]), { ...portless, jobGeneration: 1 });
  const ports = assignMasterPorts([kept, fresh]);
  assert.equal(ports.has('kept'), false);
  assert.equal(
    ports.get('new'),
    preferred + 1 < MASTER_PORT_BASE + MASTER_PORT_RANGE ? preferred + 1 : MASTER_PORT_BASE,
  );
});

test('a new generation of a job prefers another port than the previous one', () => {
  const generations = [1, 2, 3, 4].map((g) => preferredMasterPort('job-x', g));
  assert.equal(new Set(generations).size, 4);
  const again = runningJob('job-x', allocation([['h1', [0]]]), { ...portless, jobGeneration: 2 });
  assert.equal(assignMasterPorts([again]).get('job-x'), preferredMasterPort('job-x', 2));
});

test('the search wraps round the range and fails only when every port is taken', () => {
  const last = MASTER_PORT_BASE + MASTER_PORT_RANGE - 1;
  const holders = Array.from({ length: MASTER_PORT_RANGE - 1 }, (_, i) =>
    runningJob(`held-${i}`, allocation([['h1', [0]]]), { masterPort: i === 0 ? last : MASTER_PORT_BASE + i }),
  );
  const one = runningJob('one', allocation([['h2', [0]]]), portless);
  assert.equal(assignMasterPorts([...holders, one]).get('one'), MASTER_PORT_BASE);
  const full = [...holders, runningJob('x', allocation([['h1', [0]]]), { masterPort: MASTER_PORT_BASE })];
  assert.throws(() => assignMasterPorts([...full, one]), /no free rendezvous port for job one/);
});
