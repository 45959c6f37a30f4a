package org.nmws.service.mesh;

import java.io.IOException;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class MeshConfig {

    /** The mesh this point belongs to (nmws.mesh.file), or none; a file that cannot be read stops the start. */
    @Bean
    Mesh mesh(@Value("${nmws.mesh.file:}") String file) throws IOException {
        return file.isBlank() ? Mesh.NONE : Mesh.load(Path.of(file));
    }
}
