/** The stack's CloudFormation template, synthesized in-process for local use (no asset bundling: Lambdas run locally). */
import { App } from 'aws-cdk-lib';
import { settingsFromContext } from '../../infra/props.ts';
import { TesseraStack } from '../../infra/tessera-stack.ts';
import type { CfnTemplate } from '../endpoint/template/create-resources.ts';

/** The template as `cdk synth` renders it with `context`, minus asset bundling and template validation (speed). */
export const synthesizeTemplate = (context: Record<string, unknown> = {}): CfnTemplate => {
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: false,
  });
  const stack = new TesseraStack(app, 'Tessera', {
    settings: settingsFromContext((key) => app.node.tryGetContext(key)),
  });
  return app.synth().getStackArtifact(stack.artifactId).template as CfnTemplate;
};
