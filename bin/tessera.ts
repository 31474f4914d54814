// The CDK app (cdk.json "app"): `npx cdk synth`, `npx cdk deploy [-c tessera:<setting>=<value> …]`.
// Settings are described in docs/deploy.md; cdk-nag's AwsSolutions checks run on every synth.
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { InvalidContextError, settingsFromContext } from '../lib/infra/props.ts';
import { TesseraStack } from '../lib/infra/tessera-stack.ts';

const app = new App();
const readSettings = () => {
  try {
    return settingsFromContext((key) => app.node.tryGetContext(key));
  } catch (error) {
    if (!(error instanceof InvalidContextError)) throw error;
    // A user's typo in `-c tessera:…`: the keys and rules, without a stack trace of our code.
    process.stderr.write(`${error.message}\n(docs/deploy.md, "Settings")\n`);
    process.exit(1);
  }
};
const settings = readSettings();
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
