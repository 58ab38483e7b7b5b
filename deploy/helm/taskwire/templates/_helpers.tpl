{{/* The chart's name, or nameOverride. */}}
{{- define "taskwire.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's prefix for every object: fullnameOverride, or <release>-<name> unless the release already names it. */}}
{{- define "taskwire.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "taskwire.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "taskwire.labels" -}}
helm.sh/chart: {{ include "taskwire.chart" . }}
app.kubernetes.io/name: {{ include "taskwire.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: taskwire
{{- end }}

{{/* Selector labels of one component: call with (dict "ctx" $ "component" "worker"). */}}
{{- define "taskwire.selectorLabels" -}}
app.kubernetes.io/name: {{ include "taskwire.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "taskwire.workerName" -}}
{{- printf "%s-worker" (include "taskwire.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "taskwire.frontdoorName" -}}
{{- printf "%s-frontdoor" (include "taskwire.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The headless Service of the workers; its DNS name lists every ready worker pod. */}}
{{- define "taskwire.workerHeadless" -}}
{{- printf "%s-worker-headless" (include "taskwire.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* --workers of the front doors: the headless Service through gRPC's DNS resolver. */}}
{{- define "taskwire.workersTarget" -}}
{{- printf "dns:///%s.%s.svc.%s:%d" (include "taskwire.workerHeadless" .) .Release.Namespace .Values.clusterDomain (int .Values.worker.grpcPort) }}
{{- end }}

{{- define "taskwire.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "taskwire.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image of a tier: (dict "ctx" $ "tag" .Values.worker.imageTag); an empty tag falls back to image.tag, then appVersion. */}}
{{- define "taskwire.image" -}}
{{- printf "%s:%s" .ctx.Values.image.repository (.tag | default .ctx.Values.image.tag | default .ctx.Chart.AppVersion) }}
{{- end }}

{{/* The Secret holding the keys and the database URL: the existing one, or the chart's. */}}
{{- define "taskwire.secretName" -}}
{{- default (printf "%s-secrets" (include "taskwire.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/*
Pod security context. fsGroup makes the mounted Secret readable by the
image's user; the keys init container then copies it into memory with mode
0600, because Taskwire refuses key files that its group may read.
*/}}
{{- define "taskwire.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsUser }}
fsGroup: {{ .Values.securityContext.runAsUser }}
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "taskwire.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsUser }}
capabilities:
  drop: [ALL]
{{- end }}

{{/*
The keys init container: copies the key files from the Secret (group
readable, as Kubernetes mounts it) into an in-memory volume, private to the
Taskwire user. Call with (dict "ctx" $ "files" (list "signing.key" …)).
*/}}
{{- define "taskwire.keysInit" -}}
- name: keys
  image: {{ .ctx.Values.keysInit.image | quote }}
  imagePullPolicy: {{ .ctx.Values.image.pullPolicy }}
  command:
    - sh
    - -c
    - |
      set -e
      for f in {{ join " " .files }}; do
        cp "/secret/$f" "/run/taskwire/$f"
        chmod 0600 "/run/taskwire/$f"
      done
  securityContext:
    {{- include "taskwire.containerSecurityContext" .ctx | nindent 4 }}
  resources:
    {{- toYaml .ctx.Values.keysInit.resources | nindent 4 }}
  volumeMounts:
    - name: secret
      mountPath: /secret
      readOnly: true
    - name: keys
      mountPath: /run/taskwire
{{- end }}

{{/* The volumes behind the keys init container. */}}
{{- define "taskwire.keyVolumes" -}}
- name: secret
  secret:
    secretName: {{ include "taskwire.secretName" . }}
    defaultMode: 0440
- name: keys
  emptyDir:
    medium: Memory
    sizeLimit: 1Mi
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end }}

{{/* Environment shared by front doors and workers. */}}
{{- define "taskwire.commonEnv" -}}
- name: TASKWIRE_PUBLIC_URL
  value: {{ required "publicURL is required" .Values.publicURL | quote }}
- name: TASKWIRE_SIGNING_KEY
  value: /run/taskwire/signing.key
- name: TASKWIRE_INTERNAL_KEY_FILE
  value: /run/taskwire/internal.key
- name: TASKWIRE_NATS
  value: {{ required "nats.url is required" .Values.nats.url | quote }}
- name: TASKWIRE_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with .Values.tracing.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end }}

{{/* Node selection and spreading of one tier: (dict "ctx" $ "component" "worker" "tier" .Values.worker). */}}
{{- define "taskwire.scheduling" -}}
{{- with .tier.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tier.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tier.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if .ctx.Values.topologySpread.enabled }}
topologySpreadConstraints:
  - maxSkew: {{ .ctx.Values.topologySpread.maxSkew }}
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "taskwire.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 8 }}
  - maxSkew: {{ .ctx.Values.topologySpread.maxSkew }}
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "taskwire.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 8 }}
{{- end }}
{{- end }}

{{/* Egress rules both tiers share: DNS, and NATS. Call with .Values.networkPolicy. */}}
{{- define "taskwire.commonEgress" -}}
{{- if .allowDNS }}
- ports:
    - {protocol: UDP, port: 53}
    - {protocol: TCP, port: 53}
{{- end }}
- ports:
    - {protocol: TCP, port: {{ .nats.port }}}
  {{- with .nats.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
