package org.nmws.service.archive;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.nmws.service.observation.Observation.Frame;

/**
 * Moves frames stored one row each (schema V1) into packed chunks (V2) and drops the old
 * table. Java, not SQL, because the packing is {@link FrameCodec}'s; the same code runs on
 * both vendors. Flyway registers it through {@link ArchiveConfig} and the test archives.
 */
public class V3__Pack_frame_rows extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        try (Statement read = c.createStatement();
             PreparedStatement chunk = c.prepareStatement(
                     "INSERT INTO frame_chunk (observation_id, chunk_no, frame_count, data) VALUES (?, ?, ?, ?)");
             PreparedStatement count = c.prepareStatement("UPDATE observation SET raw_frames = ? WHERE id = ?")) {
            read.setFetchSize(10_000);
            try (ResultSet rs = read.executeQuery(
                    "SELECT observation_id, seq, send_ns, value_ns, bytes, ttl FROM frame ORDER BY observation_id, seq")) {
                long current = -1;
                List<Frame> frames = new ArrayList<>();
                while (rs.next()) {
                    long id = rs.getLong(1);
                    if (id != current && current >= 0) {
                        write(current, frames, chunk, count);
                        frames.clear();
                    }
                    current = id;
                    frames.add(new Frame(rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getInt(5), rs.getInt(6)));
                }
                if (current >= 0) {
                    write(current, frames, chunk, count);
                }
            }
            read.execute("DROP TABLE frame");
        }
    }

    private static void write(long observationId, List<Frame> frames, PreparedStatement chunk, PreparedStatement count)
            throws SQLException {
        List<byte[]> chunks = FrameCodec.chunks(frames);
        for (int i = 0; i < chunks.size(); i++) {
            chunk.setLong(1, observationId);
            chunk.setInt(2, i);
            chunk.setInt(3, Math.min(FrameCodec.CHUNK_FRAMES, frames.size() - i * FrameCodec.CHUNK_FRAMES));
            chunk.setBytes(4, chunks.get(i));
            chunk.executeUpdate();
        }
        count.setInt(1, frames.size());
        count.setLong(2, observationId);
        count.executeUpdate();
    }
}
