/** Kubernetes pod-IP resolution shared by receivers: a pod watch, its cache and service naming rules. */
package io.sextant.receiver.k8s;
