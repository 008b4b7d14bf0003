/** The storage SPI: one component handing out narrow stores (metrics, topology, metadata, records, management). */
package io.sextant.api.storage;
