/**
 * kube-proxy's metrics (subsystem `kubeproxy`), with upstream's names, help texts,
 * labels and buckets, in a registry of their own.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/metrics/metrics.go
 */
import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';

export class ProxyMetrics {
  readonly registry = new Registry();
  readonly syncProxyRulesLatency = new Histogram({
    name: 'kubeproxy_sync_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds',
    labelNames: ['ip_family'],
    buckets: exponentialBuckets(0.001, 2, 15),
    registers: [this.registry],
  });
  readonly syncFullProxyRulesLatency = new Histogram({
    name: 'kubeproxy_sync_full_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds for full resyncs',
    labelNames: ['ip_family'],
    buckets: exponentialBuckets(0.001, 2, 15),
    registers: [this.registry],
  });
  readonly syncPartialProxyRulesLatency = new Histogram({
    name: 'kubeproxy_sync_partial_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds for partial resyncs',
    labelNames: ['ip_family'],
    buckets: exponentialBuckets(0.001, 2, 15),
    registers: [this.registry],
  });
  readonly syncProxyRulesLastTimestamp = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
    help: 'The last time proxy rules were successfully synced',
    labelNames: ['ip_family'],
    registers: [this.registry],
  });
  readonly networkProgrammingLatency = new Histogram({
    name: 'kubeproxy_network_programming_duration_seconds',
    help: 'In Cluster Network Programming Latency in seconds',
    labelNames: ['ip_family'],
    buckets: [0.25, 0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 35, 40, 45, 50, 55, 60],
    registers: [this.registry],
  });
  readonly endpointChangesPending = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_endpoint_changes_pending',
    help: 'Pending proxy rules Endpoint changes',
    labelNames: ['ip_family'],
    registers: [this.registry],
  });
  readonly endpointChangesTotal = new Counter({
    name: 'kubeproxy_sync_proxy_rules_endpoint_changes_total',
    help: 'Cumulative proxy rules Endpoint changes',
    labelNames: ['ip_family'],
    registers: [this.registry],
  });
  readonly serviceChangesPending = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_service_changes_pending',
    help: 'Pending proxy rules Service changes',
    labelNames: ['ip_family'],
    registers: [this.registry],
  });
  readonly serviceChangesTotal = new Counter({
    name: 'kubeproxy_sync_proxy_rules_service_changes_total',
    help: 'Cumulative proxy rules Service changes',
    labelNames: ['ip_family'],
    registers: [this.registry],
  });
  readonly iptablesRulesTotal = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_iptables_total',
    help: 'Total number of iptables rules owned by kube-proxy',
    labelNames: ['table', 'ip_family'],
    registers: [this.registry],
  });
  readonly iptablesRulesLastSync = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_iptables_last',
    help: 'Number of iptables rules written by kube-proxy in last sync',
    labelNames: ['table', 'ip_family'],
    registers: [this.registry],
  });
  readonly iptablesRestoreFailuresTotal = new Counter({
    name: 'kubeproxy_sync_proxy_rules_iptables_restore_failures_total',
    help: 'Cumulative proxy iptables restore failures',
    labelNames: ['ip_family'],
    registers: [this.registry],
  });
  readonly noLocalEndpointsTotal = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_no_local_endpoints_total',
    help: 'Number of services with a Local traffic policy and no endpoints',
    labelNames: ['traffic_policy', 'ip_family'],
    registers: [this.registry],
  });
}
