#!/bin/bash
# EC2 user data for Tessera GPU hosts: installs and starts the host agent.
# The CDK stack substitutes the @@…@@ placeholders when it renders the launch template.
set -euo pipefail

AGENT_ASSET_URI='@@AGENT_ASSET_S3_URI@@'       # s3://bucket/prefix holding agent.mjs and tessera-agent.service
HOSTS_TABLE='@@HOSTS_TABLE@@'
TELEMETRY_QUEUE_URL='@@TELEMETRY_QUEUE_URL@@'
AWS_REGION='@@AWS_REGION@@'
HOST_ARN_PREFIX='@@HOST_ARN_PREFIX@@'  # arn:<partition>:ec2:<region>:<account>:instance/
LOGS_BUCKET='@@LOGS_BUCKET@@'  # worker stdout/stderr are shipped to s3://<bucket>/jobs/<jobId>/logs/

install_dir=/opt/tessera-agent
exec > >(tee -a /var/log/tessera-agent-install.log) 2>&1

if ! command -v node >/dev/null 2>&1 || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  # Amazon Linux 2023 packages Node 20 as nodejs20 (binary node-20).
  dnf install -y nodejs20
  ln -sf "$(command -v node-20)" /usr/local/bin/node
fi

mkdir -p "$install_dir"
aws s3 cp --region "$AWS_REGION" "$AGENT_ASSET_URI/agent.mjs" "$install_dir/agent.mjs"
aws s3 cp --region "$AWS_REGION" "$AGENT_ASSET_URI/tessera-agent.service" /etc/systemd/system/tessera-agent.service

imds_token=$(curl -sS -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 60' http://169.254.169.254/latest/api/token)
instance_id=$(curl -sS -H "X-aws-ec2-metadata-token: $imds_token" http://169.254.169.254/latest/meta-data/instance-id)

umask 077
cat > /etc/tessera-agent.env <<ENV
TESSERA_AGENT_MODE=ec2
TESSERA_AGENT_DESIRED_STATE=dynamodb:${HOSTS_TABLE}
TESSERA_AGENT_DESIRED_KEY=${HOST_ARN_PREFIX}${instance_id}
TESSERA_AGENT_TELEMETRY=sqs:${TELEMETRY_QUEUE_URL}
TESSERA_AGENT_LOGS=s3://${LOGS_BUCKET}
AWS_REGION=${AWS_REGION}
ENV

systemctl daemon-reload
systemctl enable --now tessera-agent.service
