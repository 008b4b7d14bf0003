/** Who may talk to Sextant: receiver tokens, GraphQL users and roles, TLS, the audit log. */
package io.sextant.server.security;
