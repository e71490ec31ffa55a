package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.run.store.LoggedChunk;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogPositionTest {

    private static List<LoggedChunk> seqs(long... seqs) {
        return Arrays.stream(seqs)
                .mapToObj(s -> new LoggedChunk(s, "TEXT_MESSAGE_CONTENT", "{}"))
                .toList();
    }

    @Test
    void onlyTheChunksThatFollowTheLastOneWithoutAGapContinueThePosition() {
        LogPosition position = new LogPosition(2);
        assertThat(position.continuing(seqs(3, 4, 5)))
                .extracting(LoggedChunk::seq)
                .containsExactly(3L, 4L, 5L);
        assertThat(position.continuing(seqs(1, 2, 3, 4)))
                .as("given already")
                .extracting(LoggedChunk::seq)
                .containsExactly(3L, 4L);
        assertThat(position.continuing(seqs(3, 4, 6, 7)))
                .as("stops at a gap")
                .extracting(LoggedChunk::seq)
                .containsExactly(3L, 4L);
        assertThat(position.continuing(seqs(8, 9))).as("starts beyond the next one").isEmpty();
        assertThat(position.continuing(List.of())).isEmpty();
    }

    @Test
    void thePositionAdvancesOnlyToTheNextSeq() {
        LogPosition position = new LogPosition(0);
        position.advance(seqs(1).get(0));
        assertThat(position.last()).isEqualTo(1);
        assertThatThrownBy(() -> position.advance(seqs(3).get(0)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> position.advance(seqs(1).get(0)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(position.last()).isEqualTo(1);
    }
}
