/**
 * SkyWalking's event protocol ({@code skywalking.v3.EventService/collect}): validated events are
 * merged by uuid and kept in the record store.
 */
package io.sextant.receiver.event;
