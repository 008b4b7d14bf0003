/**
 * Alarms: rules in SkyWalking's {@code alarm-settings.yml} format, evaluated every minute over
 * closed minutes of the merged data by every collector, each (rule, entity, minute) decided exactly
 * once cluster-wide through a version-checked state document, stored as records and sent to hooks.
 */
package io.sextant.core.alarm;
