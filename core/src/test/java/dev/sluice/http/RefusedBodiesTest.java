package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class RefusedBodiesTest {

    @Test
    void drain_bodyWithinTheBound_readsItToItsEnd() {
        ByteArrayInputStream body = new ByteArrayInputStream(new byte[100_000]);

        RefusedBodies.drain(body);

        assertThat(body.available()).isZero();
    }

    @Test
    void drain_bodyPastTheBound_readsTheBoundAndLeavesTheRest() {
        ByteArrayInputStream body = new ByteArrayInputStream(new byte[RefusedBodies.DRAINED_BYTES + 5_000]);

        RefusedBodies.drain(body);

        assertThat(body.available()).isEqualTo(5_000);
    }

    @Test
    void drain_bodyThatFailsToRead_endsWithoutThrowing() {
        int[] reads = {0};
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                reads[0]++;
                throw new IOException("connection reset");
            }

            @Override
            public int read(byte[] into, int offset, int length) throws IOException {
                return read();
            }
        };

        RefusedBodies.drain(failing);

        assertThat(reads[0]).isEqualTo(1);
    }
}
