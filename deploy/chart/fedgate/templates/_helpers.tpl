{{- define "fedgate.labels" -}}
app.kubernetes.io/name: {{ .Values.webhook.name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "fedgate.selector" -}}
app.kubernetes.io/name: {{ .Values.webhook.name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The bundle ConfigMap's name: the one in bundle.manifest, or bundle.existingConfigMap. */}}
{{- define "fedgate.bundleName" -}}
{{- if .Values.bundle.manifest -}}
{{- $bundle := fromYaml .Values.bundle.manifest -}}
{{- if or (ne (get $bundle "kind") "ConfigMap") (not (get $bundle "metadata")) -}}
{{- fail "bundle.manifest is not a ConfigMap: give the file `fedgate bundle --out FILE` wrote (--set-file bundle.manifest=FILE)" -}}
{{- end -}}
{{- get (get $bundle "metadata") "name" -}}
{{- else if .Values.bundle.existingConfigMap -}}
{{- .Values.bundle.existingConfigMap -}}
{{- else -}}
{{- fail "no policy bundle: run `fedgate bundle --out fedgate-policies.yaml` in your platform repository and give --set-file bundle.manifest=fedgate-policies.yaml (or bundle.existingConfigMap)" -}}
{{- end -}}
{{- end -}}

{{/* A list of usernames as CEL string literals: 'a', 'b' (a quote in one fails the install). */}}
{{- define "fedgate.celStrings" -}}
{{- $quoted := list }}
{{- range . }}
{{- if or (contains "'" .) (contains "\\" .) }}{{ fail (printf "registration.trustedWriters: %q cannot be a CEL string literal" .) }}{{ end }}
{{- $quoted = append $quoted (printf "'%s'" .) }}
{{- end }}
{{- join ", " $quoted }}
{{- end }}

{{/* A CEL condition: the object written, or the object as it was, carries annotation "." */}}
{{- define "fedgate.carriesAnnotation" -}}
{{- $key := printf "'%s'" . -}}
{{- printf "(object != null && has(object.metadata) && has(object.metadata.annotations) && %s in object.metadata.annotations) || (oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.annotations) && %s in oldObject.metadata.annotations)" $key $key -}}
{{- end }}
