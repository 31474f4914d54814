import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocalEventBus } from '../../../../../lib/local/endpoint/events/bus.ts';
import {
  type EventBridgeEvent,
  type EventDelivery,
  EventsError,
} from '../../../../../lib/local/endpoint/events/types.ts';

/** A bus with a fixed clock, counter ids, and deliveries queued until `flush()`. */
function harness() {
  let now = Date.parse('2030-01-01T00:00:00Z');
  let ids = 0;
  const queue: (() => void)[] = [];
  const errors: unknown[] = [];
  const bus = new LocalEventBus({
    region: 'us-east-1',
    accountId: '000000000000',
    clock: () => now,
    newEventId: () => `event-${++ids}`,
    defer: (task) => queue.push(task),
    onListenerError: (error) => errors.push(error),
  });
  const deliveries: EventDelivery[] = [];
  const events: EventBridgeEvent[] = [];
  bus.subscribe((d) => {
    deliveries.push(d);
  });
  bus.onEvent((e) => {
    events.push(e);
  });
  return {
    bus,
    deliveries,
    events,
    errors,
    flush: () => {
      while (queue.length > 0) queue.shift()!();
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof EventsError, String(error));
    return error.code;
  }
  return assert.fail('expected an EventsError');
}

const lambda = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

describe('LocalEventBus', () => {
  test('delivers an event to every target of every matching enabled rule, after the call returns', () => {
    const h = harness();
    h.bus.putRule({ Name: 'ec2', EventPattern: JSON.stringify({ source: ['aws.ec2'] }) });
    h.bus.putTargets({
      Rule: 'ec2',
      Targets: [
        { Id: 'a', Arn: lambda('a') },
        { Id: 'b', Arn: lambda('b'), Input: '{"x":1}' },
      ],
    });
    h.bus.putRule({ Name: 'off', EventPattern: JSON.stringify({ source: ['aws.ec2'] }), State: 'DISABLED' });
    h.bus.putTargets({ Rule: 'off', Targets: [{ Id: 'c', Arn: lambda('c') }] });
    const result = h.bus.putEvents({ Entries: [{ Source: 'aws.ec2', DetailType: 'x', Detail: '{"k":1}' }] });
    assert.deepEqual(result, { FailedEntryCount: 0, Entries: [{ EventId: 'event-1' }] });
    assert.equal(h.deliveries.length, 0, 'nothing is delivered synchronously');
    h.flush();
    assert.deepEqual(
      h.deliveries.map((d) => [d.rule.name, d.target.Id, d.input]),
      [
        ['ec2', 'a', h.events[0]],
        ['ec2', 'b', { x: 1 }],
      ],
    );
    assert.equal(h.events[0]?.time, '2030-01-01T00:00:00Z');
    assert.deepEqual(h.events[0]?.detail, { k: 1 });
  });

  test('PutEvents reports per-entry failures and honours the entry time', () => {
    const h = harness();
    const result = h.bus.putEvents({
      Entries: [
        { Source: 's', DetailType: 'd', Detail: '[1]' },
        { DetailType: 'd', Detail: '{}' },
        { Source: 's', DetailType: 'd', Detail: '{}', Time: Date.parse('2031-05-06T07:08:09Z') / 1000 },
        { Source: 's', DetailType: 'd', Detail: '{}', EventBusName: 'custom' },
      ],
    });
    assert.equal(result.FailedEntryCount, 3);
    assert.deepEqual(
      result.Entries.map((e) => e.ErrorCode ?? 'ok'),
      ['MalformedDetail', 'InvalidArgument', 'ok', 'ResourceNotFoundException'],
    );
    h.flush();
    assert.equal(h.events[0]?.time, '2031-05-06T07:08:09Z');
    assert.equal(
      errorCode(() => h.bus.putEvents({ Entries: [] })),
      'ValidationException',
    );
  });

  test('rule validation and lifecycle errors use EventBridge codes', () => {
    const h = harness();
    assert.equal(
      errorCode(() => h.bus.putRule({ Name: 'r' })),
      'ValidationException',
    );
    assert.equal(
      errorCode(() => h.bus.putRule({ Name: 'bad name!', ScheduleExpression: 'rate(1 minute)' })),
      'ValidationException',
    );
    assert.equal(
      errorCode(() => h.bus.putRule({ Name: 'r', ScheduleExpression: 'rate(1 minutes)' })),
      'ValidationException',
    );
    assert.equal(
      errorCode(() => h.bus.putRule({ Name: 'r', EventPattern: '{"a": 1}' })),
      'InvalidEventPatternException',
    );
    assert.equal(
      errorCode(() => h.bus.putRule({ Name: 'r', EventPattern: '{"a":["b"]}', State: 'PAUSED' })),
      'ValidationException',
    );
    assert.equal(
      errorCode(() => h.bus.putRule({ Name: 'r', EventPattern: '{"a":["b"]}', EventBusName: 'other' })),
      'ResourceNotFoundException',
    );
    assert.equal(
      errorCode(() => h.bus.putTargets({ Rule: 'nope', Targets: [{ Id: 't', Arn: lambda('t') }] })),
      'ResourceNotFoundException',
    );
    h.bus.putRule({ Name: 'r', EventPattern: '{"a":["b"]}' });
    assert.equal(
      errorCode(() => h.bus.putTargets({ Rule: 'r', Targets: [{ Id: 't', Arn: 'not-an-arn' }] })),
      'ValidationException',
    );
    assert.equal(
      errorCode(() =>
        h.bus.putTargets({ Rule: 'r', Targets: [{ Id: 't', Arn: lambda('t'), InputPath: 'x' }] }),
      ),
      'ValidationException',
    );
    const six = Array.from({ length: 6 }, (_, i) => ({ Id: `t${i}`, Arn: lambda(`f${i}`) }));
    assert.equal(
      errorCode(() => h.bus.putTargets({ Rule: 'r', Targets: six })),
      'LimitExceededException',
    );
    h.bus.putTargets({ Rule: 'r', Targets: [{ Id: 't', Arn: lambda('t') }] });
    assert.equal(
      errorCode(() => h.bus.deleteRule({ Name: 'r' })),
      'ValidationException',
    );
    h.bus.removeTargets({ Rule: 'r', Ids: ['t'] });
    h.bus.deleteRule({ Name: 'r' });
    h.bus.deleteRule({ Name: 'r' }); // deleting a missing rule succeeds, as in EventBridge
    assert.equal(
      errorCode(() => h.bus.describeRule({ Name: 'r' })),
      'ResourceNotFoundException',
    );
  });

  test('PutRule updates in place, keeping targets and creation time', () => {
    const h = harness();
    h.bus.putRule({ Name: 'tick', ScheduleExpression: 'rate(1 minute)' });
    h.bus.putTargets({ Rule: 'tick', Targets: [{ Id: 'round', Arn: lambda('round') }] });
    h.advance(5000);
    h.bus.putRule({ Name: 'tick', ScheduleExpression: 'rate(5 minutes)', Description: 'slower' });
    const [rule] = h.bus.listAllRules();
    assert.equal(rule?.ScheduleExpression, 'rate(5 minutes)');
    assert.equal(rule?.CreatedAt, Date.parse('2030-01-01T00:00:00Z'));
    assert.deepEqual(
      rule?.Targets.map((t) => t.Id),
      ['round'],
    );
    assert.deepEqual(h.bus.describeRule({ Name: 'tick' }), {
      Name: 'tick',
      Arn: 'arn:aws:events:us-east-1:000000000000:rule/tick',
      EventBusName: 'default',
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Description: 'slower',
      CreatedBy: '000000000000',
    });
  });

  test('ListRules filters by prefix and paginates in name order', () => {
    const h = harness();
    for (const name of ['b-2', 'a-1', 'b-1', 'b-3'])
      h.bus.putRule({ Name: name, EventPattern: '{"s":["x"]}' });
    const first = h.bus.listRules({ NamePrefix: 'b-', Limit: 2 });
    assert.deepEqual(
      first.Rules.map((r) => r.Name),
      ['b-1', 'b-2'],
    );
    const second = h.bus.listRules({ NamePrefix: 'b-', Limit: 2, NextToken: first.NextToken! });
    assert.deepEqual(
      second.Rules.map((r) => r.Name),
      ['b-3'],
    );
    assert.equal(second.NextToken, undefined);
  });

  test('schedule rules are listed for the driver and fireSchedule delivers a Scheduled Event', () => {
    const h = harness();
    h.bus.putRule({ Name: 'tick', ScheduleExpression: 'rate(1 minute)' });
    h.bus.putRule({ Name: 'paused', ScheduleExpression: 'rate(1 hour)', State: 'DISABLED' });
    h.bus.putTargets({ Rule: 'tick', Targets: [{ Id: 'round', Arn: lambda('round') }] });
    assert.deepEqual(
      h.bus.scheduledRules().map((s) => [s.rule.Name, s.schedule.kind]),
      [['tick', 'rate']],
    );
    const [delivery] = h.bus.fireSchedule('tick', Date.parse('2030-01-01T00:01:00Z'));
    assert.equal(delivery?.event['detail-type'], 'Scheduled Event');
    assert.equal(delivery?.event.source, 'aws.events');
    assert.deepEqual(delivery?.event.resources, ['arn:aws:events:us-east-1:000000000000:rule/tick']);
    h.flush();
    assert.equal(h.deliveries.length, 1);
    h.bus.putRule({ Name: 'pattern-only', EventPattern: '{"s":["x"]}' });
    assert.equal(
      errorCode(() => h.bus.fireSchedule('pattern-only')),
      'ValidationException',
    );
  });

  test('a failing listener is reported and does not stop other listeners', () => {
    const h = harness();
    h.bus.putRule({ Name: 'r', EventPattern: '{"source":["s"]}' });
    h.bus.putTargets({ Rule: 'r', Targets: [{ Id: 't', Arn: lambda('t') }] });
    h.bus.subscribe(() => {
      throw new Error('handler crashed');
    });
    h.bus.putEvents({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] });
    h.flush();
    assert.equal(h.deliveries.length, 1);
    assert.match(String(h.errors[0]), /handler crashed/);
  });

  test('snapshot and restore keep rules, targets and compiled patterns', () => {
    const h = harness();
    h.bus.putRule({ Name: 'r', EventPattern: '{"source":["s"]}' });
    h.bus.putTargets({ Rule: 'r', Targets: [{ Id: 't', Arn: lambda('t') }] });
    const copy = harness();
    copy.bus.restore(h.bus.snapshot());
    copy.bus.putEvents({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] });
    copy.flush();
    assert.deepEqual(
      copy.deliveries.map((d) => d.target.Id),
      ['t'],
    );
  });
});
