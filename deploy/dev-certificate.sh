#!/usr/bin/env bash
# Without cert-manager: a CA and a serving certificate for fedgate-webhook.fedgate-system.svc,
# stored as the fedgate-webhook-tls Secret (tls.crt, tls.key, ca.crt) that install.sh reads.
#   HOST=<host cluster context> deploy/dev-certificate.sh
set -euo pipefail
HOST=${HOST:?set HOST to the host cluster kubectl context}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
name=fedgate-webhook.fedgate-system.svc
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
  -subj "/CN=fedgate-ca" -keyout "$dir/ca.key" -out "$dir/ca.crt"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$name" \
  -keyout "$dir/tls.key" -out "$dir/tls.csr"
printf 'subjectAltName=DNS:%s,DNS:%s.cluster.local\n' "$name" "$name" > "$dir/ext"
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 825 -extfile "$dir/ext" -out "$dir/tls.crt"
kubectl --context "$HOST" -n fedgate-system create secret generic fedgate-webhook-tls \
  --from-file="$dir/tls.crt" --from-file="$dir/tls.key" --from-file="$dir/ca.crt" \
  --dry-run=client -o yaml | kubectl --context "$HOST" apply -f -
