#!/usr/bin/env bash
# Install fedgate's webhook for a Karmada control plane.
#   fedgate bundle --out fedgate-policies.yaml     # in YOUR platform repository
#   HOST=<host cluster context> KARMADA=<karmada-apiserver context> \
#     BUNDLE=fedgate-policies.yaml deploy/install.sh
# BUNDLE=example installs the example world (docs/bundle.md) instead (it names clusters and tenants
# yours do not have: for a try-out only). The Helm chart (deploy/chart/fedgate) does the same.
# 1. the webhook on the host cluster (namespace, TLS via cert-manager, bundle, Deployment);
# 2. its ValidatingWebhookConfiguration on the Karmada API server, with the CA filled in.
set -euo pipefail
HOST=${HOST:?set HOST to the host cluster kubectl context}
KARMADA=${KARMADA:?set KARMADA to the karmada-apiserver kubectl context}
BUNDLE=${BUNDLE:?set BUNDLE to the file \`fedgate bundle --out FILE\` wrote in your platform repository (or BUNDLE=example)}
if [ "$BUNDLE" != example ]; then
  if [ ! -f "$BUNDLE" ]; then
    echo "BUNDLE=$BUNDLE: no such file (run \`fedgate bundle --out $BUNDLE\` first)" >&2
    exit 1
  fi
  BUNDLE=$(realpath "$BUNDLE")
fi
cd "$(dirname "$0")"
[ "$BUNDLE" = example ] && BUNDLE=webhook/policies.yaml

kubectl --context "$HOST" apply -f webhook/namespace.yaml
kubectl --context "$HOST" apply -f webhook/certificate.yaml
kubectl --context "$HOST" -n fedgate-system wait --for=condition=Ready \
  certificate/fedgate-webhook --timeout=120s
kubectl --context "$HOST" apply -f "$BUNDLE" -f webhook/deployment.yaml
kubectl --context "$HOST" -n fedgate-system rollout status deployment/fedgate-webhook \
  --timeout=180s

ca=$(kubectl --context "$HOST" -n fedgate-system get secret fedgate-webhook-tls \
  -o jsonpath='{.data.ca\.crt}')
sed "s|caBundle: \"\"|caBundle: ${ca}|" karmada/validating-webhook.yaml \
  | kubectl --context "$KARMADA" apply -f -
# Health for Argo CD: member HPAs' conditions reflected and aggregated (see the file).
kubectl --context "$KARMADA" apply -f karmada/resource-interpreter-customizations.yaml
echo "fedgate is reviewing writes to the Karmada API server."
echo "For Argo CD: kubectl -n argocd patch configmap argocd-cm --patch-file argocd/argocd-cm-health.yaml"
