// The CDK app (cdk.json "app"): `npx cdk synth`, `npx cdk deploy [-c tessera:<setting>=<value> …]`.
// Settings are described in docs/deploy.md; cdk-nag's AwsSolutions checks run on every synth.
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from '../lib/infra/props.ts';
import { TesseraStack } from '../lib/infra/tessera-stack.ts';

const app = new App();
const settings = settingsFromContext((key) => app.node.tryGetContext(key));
const stackName = String(app.node.tryGetContext('tessera:stackName') ?? 'Tessera');
new TesseraStack(app, stackName, {
  settings,
  description: `Tessera GPU-cluster scheduler control plane (cluster ${settings.clusterName})`,
  ...(process.env.CDK_DEFAULT_ACCOUNT || process.env.CDK_DEFAULT_REGION
    ? { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } }
    : {}),
});
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
app.synth();
