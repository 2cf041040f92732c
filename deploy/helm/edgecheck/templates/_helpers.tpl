{{/* The chart's name, or nameOverride. */}}
{{- define "edgecheck.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's full name: fullnameOverride, else the release name (with the chart's name when the
release name does not hold it). Names every object, the cluster-scoped ones included. */}}
{{- define "edgecheck.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "edgecheck.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "edgecheck.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name: the existing ServiceAccount to run as (serviceAccount.create is false)" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "edgecheck.selectorLabels" -}}
app.kubernetes.io/name: {{ include "edgecheck.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "edgecheck.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "edgecheck.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: serve
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "edgecheck.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Whether to render a Prometheus Operator kind (the argument: its name): the cluster serves
monitoring.coreos.com/v1 (as helm's capabilities list it: the group version, or the group version and
kind), or prometheusOperator.assumeInstalled says it does. */}}
{{- define "edgecheck.monitoringApi" -}}
{{- $root := index . 0 -}}
{{- $kind := index . 1 -}}
{{- if or $root.Values.prometheusOperator.assumeInstalled ($root.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") ($root.Capabilities.APIVersions.Has (printf "monitoring.coreos.com/v1/%s" $kind)) -}}
true
{{- end -}}
{{- end -}}

{{/* A map as `k=v, k=v`, sorted (NOTES). */}}
{{- define "edgecheck.inline" -}}
{{- $out := list -}}
{{- range $k, $v := . -}}
{{- $out = append $out (printf "%s=%v" $k $v) -}}
{{- end -}}
{{- join ", " $out -}}
{{- end -}}
