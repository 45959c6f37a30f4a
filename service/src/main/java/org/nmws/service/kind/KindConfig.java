package org.nmws.service.kind;

import java.nio.file.Path;
import org.nmws.service.measure.MeasurementKinds;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The kinds table, as the measurement service and every dialect see it. */
@Configuration(proxyBeanMethods = false)
class KindConfig {

    /** nmws.key-file: the keys (owampd's pfs format) this point uses in OWAMP's and TWAMP's authenticated modes. */
    @Bean
    MeasurementKinds measurementKinds(@Value("${nmws.key-file:}") String keyFile) {
        return Kinds.measurementKinds(keyFile.isBlank() ? null : Path.of(keyFile));
    }
}
