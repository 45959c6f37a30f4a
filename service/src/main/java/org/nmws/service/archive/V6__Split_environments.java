package org.nmws.service.archive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.nmws.service.observation.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Moves the environment description out of every observation written before V5 into table
 * environment, leaving the per-test figures on the row ({@link EnvironmentParts}). Java, not
 * SQL, because the split and the digest are the archive's own; the same code runs on both
 * vendors, in pages so no vendor holds a large result open. Flyway registers it through
 * {@link ArchiveConfig} and the test archives.
 */
public class V6__Split_environments extends BaseJavaMigration {
    private static final int PAGE = 1000;

    @Override
    public void migrate(Context context) throws Exception {
        // The connection stays Flyway's: one transaction for the whole move, not closed here.
        JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(context.getConnection(), true));
        // As Spring Boot configures the service's mapper for what is read here, so digests match.
        ObjectMapper json = JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
        EnvironmentTable table = new EnvironmentTable(jdbc, json);
        long after = Long.MIN_VALUE;
        while (true) {
            // The page is read whole before writing: no cursor stays open under the writes.
            List<Map<String, Object>> page = jdbc.queryForList(
                    "SELECT id, environment FROM observation WHERE environment_id IS NULL AND id > ? ORDER BY id LIMIT ?",
                    after, PAGE);
            if (page.isEmpty()) {
                return;
            }
            List<Object[]> updates = new ArrayList<>(page.size());
            for (Map<String, Object> row : page) {
                long id = ((Number) row.get("id")).longValue();
                EnvironmentParts parts;
                try {
                    parts = EnvironmentParts.of(json.readValue((String) row.get("environment"), Environment.class));
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException("observation " + id + ": environment JSON is corrupt", e);
                }
                updates.add(new Object[] {table.idOf(parts.description()), json.writeValueAsString(parts.perTest()), id});
                after = id;
            }
            jdbc.batchUpdate("UPDATE observation SET environment_id = ?, environment = ? WHERE id = ?", updates);
        }
    }
}
