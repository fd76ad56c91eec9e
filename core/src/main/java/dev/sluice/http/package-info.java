/**
 * What an HTTP adapter answers for a rate-limit evaluation, independent of the HTTP stack: the header fields and the
 * RFC 9457 problem body; and what Sluice's own endpoints share (their operations' access, a refused body's rest).
 */
@NullMarked
package dev.sluice.http;

import org.jspecify.annotations.NullMarked;
