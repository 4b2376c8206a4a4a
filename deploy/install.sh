#!/usr/bin/env bash
# Install fedgate's webhook for a Karmada control plane.
#   HOST=<host cluster context> KARMADA=<karmada-apiserver context> deploy/install.sh
# 1. the webhook on the host cluster (namespace, TLS via cert-manager, bundle, Deployment);
# 2. its ValidatingWebhookConfiguration on the Karmada API server, with the CA filled in.
set -euo pipefail
cd "$(dirname "$0")"
HOST=${HOST:?set HOST to the host cluster kubectl context}
KARMADA=${KARMADA:?set KARMADA to the karmada-apiserver kubectl context}

kubectl --context "$HOST" apply -f webhook/namespace.yaml
kubectl --context "$HOST" apply -f webhook/certificate.yaml
kubectl --context "$HOST" -n fedgate-system wait --for=condition=Ready \
  certificate/fedgate-webhook --timeout=120s
kubectl --context "$HOST" apply -f webhook/policies.yaml -f webhook/deployment.yaml
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
