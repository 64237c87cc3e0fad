/** The real Kubernetes API server harness lives with the scripts (the lab twin uses it too). */
export * from '../../scripts/lib/kube-apiserver';
