/** Alarms in the server: the settings file (read and re-read), the evaluation schedule and the status endpoints. */
package io.sextant.server.alarm;
