/**
 * Hooks: the HTTP calls an alarm makes (SkyWalking's webhook, Slack, PagerDuty, Discord, DingTalk,
 * Feishu, WeChat), retried with backoff from a bounded queue, never on the evaluating thread.
 */
package io.sextant.core.alarm.hook;
