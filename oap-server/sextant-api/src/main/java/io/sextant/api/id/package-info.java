/** Entity ids spelled exactly as SkyWalking spells them, for every entity kind. */
package io.sextant.api.id;
