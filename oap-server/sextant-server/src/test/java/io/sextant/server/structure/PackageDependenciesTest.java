package io.sextant.server.structure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of the modules this module's tests see (the api, core, the receivers, the
 * storage plugins, the GraphQL side and the server), read from their compiled main classes, tests
 * excluded:
 *
 * <ul>
 *   <li>no package cycle among the packages of {@code io.sextant.api}, none among those of {@code
 *       io.sextant.core} and none among the server's rooms ({@code io.sextant.server}). Every
 *       package is its own slice, and parent↔child pairs count: {@code core.profiling}↔{@code
 *       core.profiling.continuous} was such a cycle, and {@code core.query}↔{@code core.query.mqe}
 *       would be one (the structure review left parent↔child pairs out; none exist today, so the
 *       stricter rule costs nothing and keeps a sub-package a room of its own);
 *   <li>a receiver ({@code io.sextant.receiver..}) imports nothing of core, the storage plugins, the
 *       server or the GraphQL side: it speaks only the api's ports;
 *   <li>the api imports nothing of core, the server, the receivers, the storage plugins or the
 *       GraphQL side.
 * </ul>
 *
 * <p>The dependencies are those of the bytecode (types, calls, fields, annotations), not of the
 * Javadoc.
 */
class PackageDependenciesTest {
  private static final String BASE = "io.sextant.";

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.sextant");
  }

  @Test
  void theRulesSeeEveryLayer() {
    // An empty import would pass every rule below: make sure each layer is on the classpath.
    for (String layer : List.of("api", "core", "server", "query.graphql", "storage.memory",
        "storage.elasticsearch", "receiver.common", "receiver.ebpf", "receiver.envoy", "receiver.event",
        "receiver.k8s", "receiver.mesh")) {
      assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith(BASE + layer)))
          .as("classes of io.sextant.%s imported", layer).isTrue();
    }
  }

  @Test
  void apiPackagesFormNoCycle() {
    assertNoCycles("api");
  }

  @Test
  void corePackagesFormNoCycle() {
    assertNoCycles("core");
  }

  @Test
  void serverPackagesFormNoCycle() {
    assertNoCycles("server");
  }

  @Test
  void receiversSpeakOnlyTheApi() {
    noClasses().that().resideInAPackage("io.sextant.receiver..")
        .should().dependOnClassesThat().resideInAnyPackage("io.sextant.core..", "io.sextant.storage..",
            "io.sextant.server..", "io.sextant.query..")
        .because("a receiver reaches core and storage only through the api's ports")
        .check(classes);
  }

  @Test
  void apiStandsBelowEverything() {
    noClasses().that().resideInAPackage("io.sextant.api..")
        .should().dependOnClassesThat().resideInAnyPackage("io.sextant.core..", "io.sextant.server..",
            "io.sextant.receiver..", "io.sextant.storage..", "io.sextant.query..")
        .because("the plugin api is what every other module builds on")
        .check(classes);
  }

  private static void assertNoCycles(String layer) {
    SliceAssignment byPackage = new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String name = c.getPackageName();
        return name.equals(BASE + layer) || name.startsWith(BASE + layer + ".")
            ? SliceIdentifier.of(name.substring(BASE.length()))
            : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "the packages of io.sextant." + layer + ", each its own slice";
      }
    };
    slices().assignedFrom(byPackage).namingSlices("$1").should().beFreeOfCycles().check(classes);
  }
}
