package io.sextant.core.management;

import io.sextant.api.storage.ManagedDocument;
import io.sextant.api.storage.ManagementStore;
import io.sextant.api.storage.VersionConflictException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UI templates (booster-ui dashboards) with SkyWalking 10.1's semantics, over the management store
 * shared by all collectors. Every write names the version it replaces: a change or disable that loses
 * a race reads again and is applied on top (both replace the whole template, as in SkyWalking, so
 * applying one after the other loses nothing a user asked for); after {@link #MAX_ATTEMPTS} lost races
 * it answers a refusal asking to try again.
 */
public final class UiTemplates {
  /** The management document kind. */
  public static final String KIND = "ui-template";

  static final int MAX_ATTEMPTS = 8;
  static final String NOT_FOUND = "Can't find the template";
  static final String EXISTS = "Template already exists";
  static final String BUSY = "The template is being changed by someone else at the same time; try again";
  private static final int MAX_ID_CHARS = 256;
  private static final Logger LOG = LoggerFactory.getLogger(UiTemplates.class);

  private final Supplier<ManagementStore> store;
  private final Supplier<List<ShippedTemplate>> shipped;
  private final Supplier<String> newIds;

  /**
   * @param store read when used, so building this does no I/O and needs no started storage
   * @param shipped the shipped dashboards, read by {@link #loadShipped()}
   */
  public UiTemplates(Supplier<ManagementStore> store, Supplier<List<ShippedTemplate>> shipped) {
    this(store, shipped, () -> UUID.randomUUID().toString());
  }

  UiTemplates(Supplier<ManagementStore> store, Supplier<List<ShippedTemplate>> shipped, Supplier<String> newIds) {
    this.store = store;
    this.shipped = shipped;
    this.newIds = newIds;
  }

  /**
   * Every booster-ui dashboard not disabled, by id ({@code getAllTemplates}). Rows of another UI
   * (Horizon's, written through the template store) are left out: booster-ui would list them as
   * dashboards without a name.
   */
  public List<DashboardTemplate> all() {
    List<DashboardTemplate> out = new ArrayList<>();
    for (DashboardTemplate t : list(false)) {
      if (isDashboard(t.configuration())) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * Every row of the template store, disabled ones too when asked (SkyWalking 11's {@code GET
   * /ui-management/templates}), whatever UI wrote it.
   */
  public List<DashboardTemplate> list(boolean includingDisabled) {
    List<DashboardTemplate> out = new ArrayList<>();
    for (ManagedDocument d : store.get().list(KIND)) {
      try {
        StoredTemplate t = StoredTemplate.decode(d.id(), d.body());
        if (includingDisabled || !t.disabled()) {
          out.add(new DashboardTemplate(d.id(), t.configuration(), t.disabled()));
        }
      } catch (IllegalStateException e) {
        LOG.warn("skipping a UI template: {}", e.getMessage());
      }
    }
    return out;
  }

  /**
   * A new row under the caller's id, its configuration kept byte for byte (SkyWalking 11's {@code
   * POST /ui-management/templates}: Horizon names its rows, e.g. {@code horizon.layer.MESH}, and
   * reads back what it wrote); refused when the id is taken.
   */
  public TemplateChange create(String id, String configuration) {
    if (!plausibleId(id)) {
      return TemplateChange.refused(id == null ? "" : id, "an id of 1 to " + MAX_ID_CHARS + " characters is needed");
    }
    try {
      store.get().put(KIND, id, StoredTemplate.byUser(configuration).encode(), 0);
      return TemplateChange.done(id);
    } catch (VersionConflictException e) {
      return TemplateChange.refused(id, EXISTS);
    }
  }

  /**
   * Replaces a row's configuration byte for byte and enables it (SkyWalking 11's {@code PUT
   * /ui-management/templates}); unlike {@link #change} any UI's configuration is taken.
   */
  public TemplateChange update(String id, String configuration) {
    return replace(id == null ? "" : id, current -> StoredTemplate.byUser(configuration));
  }

  private static boolean isDashboard(String configuration) {
    try {
      TemplateConfiguration.parse(configuration);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The template, unless absent or disabled ({@code getTemplate} answers null for both). */
  public Optional<DashboardTemplate> get(String id) {
    if (!plausibleId(id)) {
      return Optional.empty();
    }
    return store.get().get(KIND, id)
        .map(d -> StoredTemplate.decode(id, d.body()))
        .filter(t -> !t.disabled())
        .map(t -> new DashboardTemplate(id, t.configuration(), false));
  }

  /** A new user template under a new random id ({@code addTemplate}). */
  public TemplateChange add(String configuration) {
    try {
      TemplateConfiguration.parse(configuration);
    } catch (IllegalArgumentException e) {
      return TemplateChange.refused("", e.getMessage());
    }
    String id = newIds.get();
    try {
      store.get().put(KIND, id, StoredTemplate.byUser(configuration).encode(), 0);
      return TemplateChange.done(id);
    } catch (VersionConflictException e) {
      return TemplateChange.refused(id, EXISTS);
    }
  }

  /**
   * Replaces a template's configuration ({@code changeTemplate}); as in SkyWalking this enables a
   * disabled one again. A shipped template changed here is the user's from now on.
   */
  public TemplateChange change(String id, String configuration) {
    String safeId = id == null ? "" : id;
    try {
      TemplateConfiguration.parse(configuration);
    } catch (IllegalArgumentException e) {
      return TemplateChange.refused(safeId, e.getMessage());
    }
    return replace(safeId, current -> StoredTemplate.byUser(configuration));
  }

  /** Hides a template from every read ({@code disableTemplate}); it stays stored, as in SkyWalking. */
  public TemplateChange disable(String id) {
    String safeId = id == null ? "" : id;
    return replace(safeId, current -> new StoredTemplate(current.configuration(), true, null));
  }

  private TemplateChange replace(String id, UnaryOperator<StoredTemplate> change) {
    if (!plausibleId(id)) {
      return TemplateChange.refused(id, NOT_FOUND);
    }
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      Optional<ManagedDocument> current = store.get().get(KIND, id);
      if (current.isEmpty()) {
        return TemplateChange.refused(id, NOT_FOUND);
      }
      ManagedDocument d = current.get();
      try {
        store.get().put(KIND, id, change.apply(StoredTemplate.decode(id, d.body())).encode(), d.version());
        return TemplateChange.done(id);
      } catch (VersionConflictException e) {
        Thread.onSpinWait(); // another collector or request wrote first: read again
      }
    }
    return TemplateChange.refused(id, BUSY);
  }

  private static boolean plausibleId(String id) {
    return id != null && !id.isBlank() && id.length() <= MAX_ID_CHARS;
  }

  /** What {@link #loadShipped()} did, per shipped template. */
  public record ShippedLoad(List<String> created, List<String> upgraded, List<String> current,
      List<String> keptUserChanges, List<String> skipped) {
    @Override
    public String toString() {
      return created.size() + " created, " + upgraded.size() + " upgraded, " + current.size() + " current, "
          + keptUserChanges.size() + " changed by users (kept), " + skipped.size() + " skipped " + skipped;
    }
  }

  private enum Outcome { CREATED, UPGRADED, CURRENT, USER_CHANGED, SKIPPED }

  /**
   * Installs the shipped dashboards: creates each one absent, replaces one nobody changed whose shipped
   * content changed, and never touches one a user changed or disabled. Safe with several collectors
   * starting at once: a create or upgrade that loses a race reads again and finds the work done.
   * A shipped dashboard whose {@code layer_entity_name} another template already uses is skipped
   * (logged): SkyWalking refuses to start then; the user's dashboard wins here. Horizon's rows have
   * no such name and are installed by id alone.
   */
  public ShippedLoad loadShipped() {
    Map<String, String> idByNameKey = new HashMap<>();
    for (DashboardTemplate t : all()) {
      try {
        idByNameKey.putIfAbsent(TemplateConfiguration.nameKey(TemplateConfiguration.parse(t.configuration())),
            t.id());
      } catch (IllegalArgumentException e) {
        // A template stored before checks existed; it has no name to collide with.
      }
    }
    Map<Outcome, List<String>> ids = new EnumMap<>(Outcome.class);
    for (Outcome o : Outcome.values()) {
      ids.put(o, new ArrayList<>());
    }
    for (ShippedTemplate t : shipped.get()) {
      String owner = t.nameKey() == null ? null : idByNameKey.get(t.nameKey());
      Outcome outcome;
      if (owner != null && !owner.equals(t.id())) {
        LOG.warn("shipped UI template {} not installed: template {} already has its layer_entity_name {}",
            t.id(), owner, t.nameKey());
        outcome = Outcome.SKIPPED;
      } else {
        outcome = install(t);
      }
      ids.get(outcome).add(t.id());
    }
    return new ShippedLoad(List.copyOf(ids.get(Outcome.CREATED)), List.copyOf(ids.get(Outcome.UPGRADED)),
        List.copyOf(ids.get(Outcome.CURRENT)), List.copyOf(ids.get(Outcome.USER_CHANGED)),
        List.copyOf(ids.get(Outcome.SKIPPED)));
  }

  private Outcome install(ShippedTemplate t) {
    String body = StoredTemplate.shipped(t).encode();
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      Optional<ManagedDocument> current = store.get().get(KIND, t.id());
      try {
        if (current.isEmpty()) {
          store.get().put(KIND, t.id(), body, 0);
          return Outcome.CREATED;
        }
        StoredTemplate stored = StoredTemplate.decode(t.id(), current.get().body());
        if (!stored.pristine()) {
          return Outcome.USER_CHANGED;
        }
        if (stored.shippedHash().equals(t.hash())) {
          return Outcome.CURRENT;
        }
        store.get().put(KIND, t.id(), body, current.get().version());
        return Outcome.UPGRADED;
      } catch (VersionConflictException e) {
        Thread.onSpinWait(); // another collector (or a user) wrote first: look again
      }
    }
    throw new IllegalStateException("shipped UI template " + t.id() + " kept changing under us; not installed");
  }
}
