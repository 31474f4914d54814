/**
 * Alarms on what needs a person: any message in a DLQ (a rejected submission, an undeliverable telemetry report,
 * a scheduler event or EC2 event that kept failing) and round errors. They notify an SNS topic (encrypted,
 * TLS only), with an optional e-mail subscription.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface TesseraAlarmsProps {
  readonly deadLetterQueues: Readonly<Record<string, Queue>>;
  readonly roundFunction: IFunction;
  readonly email?: string;
}

export class TesseraAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: TesseraAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Tessera alarms',
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
      enforceSSL: true,
    });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    const action = new SnsAction(this.topic);
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      const alarm = new Alarm(this, `${name}DlqDepth`, {
        alarmDescription: `Messages in the ${name} DLQ: inspect their tessera-rejection-reason attribute or the function logs`,
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      this.alarms.push(alarm);
    }
    const roundErrors = new Alarm(this, 'RoundErrors', {
      alarmDescription:
        'Scheduling rounds are failing: jobs are not being placed; see the round function logs',
      metric: props.roundFunction.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 2,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    roundErrors.addAlarmAction(action);
    this.alarms.push(roundErrors);
  }
}
