/**
 * What an HTTP adapter answers for a rate-limit evaluation, independent of the HTTP stack: the header fields and the
 * RFC 9457 problem body.
 */
@NullMarked
package dev.sluice.http;

import org.jspecify.annotations.NullMarked;
