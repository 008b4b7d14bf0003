{{/* Names and labels. */}}
{{- define "sextant.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sextant.fullname" -}}
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

{{- define "sextant.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sextant.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: collector
{{- end -}}

{{- define "sextant.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "sextant.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "sextant.uiSelectorLabels" -}}
app.kubernetes.io/name: {{ include "sextant.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: ui
{{- end -}}

{{- define "sextant.horizonSelectorLabels" -}}
app.kubernetes.io/name: {{ include "sextant.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: horizon
{{- end -}}

{{- define "sextant.horizonService" -}}{{ include "sextant.fullname" . }}-horizon{{- end -}}

{{- define "sextant.uiService" -}}{{ include "sextant.fullname" . }}-ui{{- end -}}

{{/* A StatefulSet when the spool lives on claims (each collector its own), else a Deployment. */}}
{{- define "sextant.workloadKind" -}}
{{- if and .Values.spool.enabled (eq .Values.spool.volume "persistentVolumeClaim") -}}StatefulSet{{- else -}}Deployment{{- end -}}
{{- end -}}

{{- define "sextant.grpcService" -}}{{ include "sextant.fullname" . }}-grpc{{- end -}}
{{- define "sextant.httpService" -}}{{ include "sextant.fullname" . }}-http{{- end -}}

{{/* Whether a receiver watches pods through the Kubernetes API (the ServiceAccount and ClusterRole). */}}
{{- define "sextant.watchesPods" -}}
{{- if or .Values.als.kubernetes.enabled .Values.rover.accessLog.kubernetes.enabled -}}true{{- end -}}
{{- end -}}

{{- define "sextant.serviceAccountName" -}}
{{- if include "sextant.watchesPods" . -}}{{ include "sextant.fullname" . }}{{- else -}}default{{- end -}}
{{- end -}}

{{/* The most collectors this release can run: what the memory-store check compares with 1. */}}
{{- define "sextant.maxReplicas" -}}
{{- if .Values.autoscaling.enabled -}}{{ .Values.autoscaling.maxReplicas }}{{- else -}}{{ .Values.replicaCount }}{{- end -}}
{{- end -}}

{{/*
Refuses combinations the schema cannot express. The memory store keeps each collector's data in its
own process, so with several collectors every query would answer one collector's share.
*/}}
{{- define "sextant.validate" -}}
{{- $max := include "sextant.maxReplicas" . | int -}}
{{- if and (eq .Values.storage.type "memory") (gt $max 1) -}}
{{- fail (printf "storage.type=memory allows exactly one collector, but this release could run %d (replicaCount / autoscaling.maxReplicas): each collector would keep and answer only its own data. Set replicaCount: 1 with autoscaling.enabled: false, or use storage.type: elasticsearch." $max) -}}
{{- end -}}
{{- if and (eq .Values.storage.type "elasticsearch") (not .Values.storage.elasticsearch.url) -}}
{{- fail "storage.type=elasticsearch needs storage.elasticsearch.url (e.g. https://es-http.elastic:9200)" -}}
{{- end -}}
{{- $auth := .Values.storage.elasticsearch.auth -}}
{{- if and (ne $auth.type "none") (not $auth.existingSecret) -}}
{{- fail (printf "storage.elasticsearch.auth.type=%s needs storage.elasticsearch.auth.existingSecret (a Secret holding the credentials)" $auth.type) -}}
{{- end -}}
{{- if and .Values.spool.enabled (ne .Values.storage.type "elasticsearch") -}}
{{- fail "spool.enabled needs storage.type=elasticsearch: the memory store keeps nothing across a restart, so there is nothing to spool for" -}}
{{- end -}}
{{- if and .Values.ui.enabled .Values.security.tls.http -}}
{{- fail "ui.enabled needs security.tls.http=false: SkyWalking's UI container (apm-webapp) reaches the collectors' HTTP port in plain text only; keep TLS on the UI's own ingress" -}}
{{- end -}}
{{- if and .Values.horizon.enabled .Values.security.tls.http -}}
{{- fail "horizon.enabled needs security.tls.http=false: the chart points Horizon at the collectors' HTTP port in plain text; keep TLS on Horizon's own ingress" -}}
{{- end -}}
{{- if and .Values.autoscaling.enabled (lt (int .Values.autoscaling.maxReplicas) (int .Values.autoscaling.minReplicas)) -}}
{{- fail "autoscaling.maxReplicas must be at least autoscaling.minReplicas" -}}
{{- end -}}
{{- end -}}

{{/* host:port list and scheme of storage.elasticsearch.url. */}}
{{- define "sextant.esHosts" -}}
{{- $hosts := list -}}
{{- range $u := splitList "," .Values.storage.elasticsearch.url -}}
{{- $p := urlParse (trim $u) -}}
{{- if not $p.host -}}{{- fail (printf "storage.elasticsearch.url: '%s' is not a URL like https://host:9200" $u) -}}{{- end -}}
{{- $hosts = append $hosts $p.host -}}
{{- end -}}
{{- join "," $hosts -}}
{{- end -}}

{{- define "sextant.esTls" -}}
{{- $schemes := list -}}
{{- range $u := splitList "," .Values.storage.elasticsearch.url -}}
{{- $schemes = append $schemes (urlParse (trim $u)).scheme | uniq -}}
{{- end -}}
{{- if gt (len $schemes) 1 -}}{{- fail "storage.elasticsearch.url: every URL must use the same scheme (http or https)" -}}{{- end -}}
{{- eq (first $schemes) "https" -}}
{{- end -}}
