package io.sextant.core.spool;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead spool: what this collector accepted and has not yet written to storage, on disk,
 * so a killed collector's successor loses nothing (docs/architecture.md, "The spool"). One
 * directory per run (writer id) holding three kinds of frame files:
 * <ul>
 *   <li>{@code obs-<epoch>-<writer>}: the observations one thread accepted in one epoch, between
 *       two cuts (a file per thread, so accepting threads never wait for each other to write);
 *   <li>{@code cut-<epoch>}: what the flusher made of the aggregator at the cut closing that epoch
 *       (its snapshots, from time to time a checkpoint of its roll-ups), ended by an end frame;
 *   <li>{@code rows-<n>}: rows the write queue had no room for in memory ({@link Overflow}).
 * </ul>
 * An epoch's observations are deleted once its cut is complete; cuts once storage has everything
 * up to a later cut holding a checkpoint. Bounded by {@link SpoolConfig#maxBytes()}.
 *
 * <p>A run holds an OS lock on the {@code lock} file of its directory for as long as it lives, and
 * on the directory of each dead run it took over until that directory goes: a run directory is
 * dead only when its lock can be taken (the OS releases a killed process's locks), so collectors
 * sharing a spool directory never take over each other's live runs, nor one dead run twice.
 */
public final class Spool implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Spool.class);
  private static final String WRITER_FILE = "writer";
  private static final String LOCK_FILE = "lock";
  /**
   * Run directories whose lock this JVM holds or is taking. File locks are per process: a second
   * Spool in the same JVM (tests) must see them as live without opening their lock file, since
   * closing any channel of a file may release the process's lock on it.
   */
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();
  private static final byte END = 'E';
  private final SpoolConfig config;
  private final String writerId;
  private final Path runDir;
  private final ScheduledExecutorService syncer;
  private final Counter droppedBytes;
  private final Counter corruptFiles;
  /** Observation files by epoch (one per writer that appended in it), the current epoch last. */
  private final TreeMap<Long, List<FrameFile>> observations = new TreeMap<>();
  /** Complete cut files by epoch; true if the cut holds a checkpoint. */
  private final TreeMap<Long, CutEntry> cuts = new TreeMap<>();
  /** Runs recovered from, deleted once storage has this run's writes up to the given epoch. */
  private final Map<Path, Long> recoveredRuns = new TreeMap<>();
  /** This run's lock, then those of the dead runs taken over, until their directories go. */
  private final Map<Path, RunLock> locks = new ConcurrentHashMap<>();
  private final Overflow overflow;
  private volatile long epoch;
  private long storedBytes;

  private record CutEntry(Path path, long bytes, boolean checkpoint) {}

  public Spool(SpoolConfig config, String writerId, MeterRegistry registry) {
    this.config = config;
    this.writerId = writerId;
    this.runDir = config.directory().resolve(writerId.replaceAll("[^A-Za-z0-9._-]", "_"));
    try {
      Files.createDirectories(runDir);
      RunLock own = RunLock.take(runDir);
      if (own == null) {
        throw new IllegalStateException("the spool run directory " + runDir + " is locked by another live run");
      }
      locks.put(runDir, own);
      // Written once locked: a run directory with a writer file and no lock held is dead.
      Files.writeString(runDir.resolve(WRITER_FILE), writerId, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the spool directory " + runDir, e);
    }
    this.droppedBytes = Counter.builder("sextant_spool_dropped_bytes")
        .description("spooled bytes dropped because the spool was full (storage down longer than it holds)")
        .register(registry);
    this.corruptFiles = Counter.builder("sextant_spool_corrupt_files")
        .description("spool files found torn or corrupt at recovery; read up to the damage").register(registry);
    Gauge.builder("sextant_spool_bytes", this, Spool::bytes).description("bytes held in the spool")
        .register(registry);
    this.overflow = new Overflow(runDir, config.maxBytes(), this::bytes);
    if (config.fsync() == SpoolConfig.Fsync.INTERVAL) {
      syncer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sextant-spool-sync");
        t.setDaemon(true);
        return t;
      });
      syncer.scheduleWithFixedDelay(this::syncObservations, config.fsyncIntervalMillis(),
          config.fsyncIntervalMillis(), TimeUnit.MILLISECONDS);
    } else {
      syncer = null;
    }
  }

  public String writerId() {
    return writerId;
  }

  /** An appender of observations for one thread; {@code id} names its files and tags its frames. */
  public Writer writer(int id) {
    return new Writer(id);
  }

  /**
   * One thread's observations: its own file in each epoch, opened by its first append there. Not
   * thread-safe; appends hold off {@link #rotate} (the aggregator's cut lock).
   */
  public final class Writer {
    private final int id;
    private FrameFile file;
    private long fileEpoch = -1;

    private Writer(int id) {
      this.id = id;
    }

    /** Appends accepted observations (one or more, as {@link ObservationCodec} wrote them) to this epoch. */
    public void append(Out observations) {
      if (observations.size() == 0) {
        return;
      }
      long now = epoch;
      if (file == null || fileEpoch != now) {
        file = open(now, id);
        fileEpoch = now;
      }
      file.append(observations);
      if (config.fsync() == SpoolConfig.Fsync.ALWAYS) {
        file.force();
      }
    }
  }

  private synchronized FrameFile open(long epoch, int writer) {
    FrameFile f = FrameFile.create(runDir.resolve(name("obs", epoch) + "-" + writer + ".log"));
    observations.computeIfAbsent(epoch, e -> new ArrayList<>()).add(f);
    return f;
  }

  /**
   * Starts a new epoch; the caller guarantees no observation is being appended (the aggregator's
   * cut lock). Returns the epoch that ended, whose cut the caller writes next.
   */
  public synchronized long rotate() {
    return epoch++;
  }

  /** Writes the cut closing {@code epoch}: frames, then {@link CutWriter#complete}. */
  public CutWriter cut(long epoch) {
    return new CutWriter(epoch, FrameFile.create(runDir.resolve(name("cut", epoch) + ".log")));
  }

  /** One cut file being written; frames must not start with the byte {@code 'E'}. */
  public final class CutWriter {
    private final long epoch;
    private final FrameFile file;
    private boolean checkpoint;

    private CutWriter(long epoch, FrameFile file) {
      this.epoch = epoch;
      this.file = file;
    }

    public void frame(Out out) {
      file.append(out);
    }

    /** Marks the cut as holding a checkpoint: recovery may start from it. */
    public void checkpoint() {
      checkpoint = true;
    }

    /**
     * Ends the cut: the end frame, forced unless fsync is {@code NEVER}; the epoch's observations
     * are deleted, their effect being in this cut.
     */
    public void complete() {
      Out end = new Out(1);
      end.u8(END);
      file.append(end);
      if (config.fsync() != SpoolConfig.Fsync.NEVER) {
        file.force();
      }
      file.close();
      synchronized (Spool.this) {
        cuts.put(epoch, new CutEntry(file.path(), file.bytes(), checkpoint));
        storedBytes += file.bytes();
        for (Iterator<List<FrameFile>> it = observations.headMap(epoch, true).values().iterator(); it.hasNext(); ) {
          for (FrameFile f : it.next()) {
            f.close();
            delete(f.path());
          }
          it.remove();
        }
        bound();
      }
    }
  }

  /**
   * Storage has everything this run produced up to the cut of {@code epoch}: cuts before the last
   * checkpoint at or before it are no longer needed, nor runs recovered before that cut.
   */
  public synchronized void written(long epoch) {
    Long checkpoint = null;
    for (Map.Entry<Long, CutEntry> e : cuts.headMap(epoch, true).descendingMap().entrySet()) {
      if (e.getValue().checkpoint()) {
        checkpoint = e.getKey();
        break;
      }
    }
    if (checkpoint != null) {
      dropCuts(cuts.headMap(checkpoint, false), false);
    }
    for (Iterator<Map.Entry<Path, Long>> it = recoveredRuns.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Path, Long> run = it.next();
      if (run.getValue() <= epoch) {
        deleteRun(run.getKey());
        it.remove();
      }
    }
  }

  /** Past the bound, the oldest cuts go (never the newest), counted. */
  private void bound() {
    while (bytes() > config.maxBytes() && cuts.size() > 1) {
      Map.Entry<Long, CutEntry> oldest = cuts.firstEntry();
      dropCuts(cuts.headMap(oldest.getKey(), true), true);
      LOG.warn("spool full ({} bytes): dropped the cut of epoch {}; storage has been unavailable longer than "
          + "spool.maxMegabytes holds", config.maxBytes(), oldest.getKey());
    }
  }

  private void dropCuts(Map<Long, CutEntry> drop, boolean counted) {
    for (Iterator<CutEntry> it = drop.values().iterator(); it.hasNext(); ) {
      CutEntry c = it.next();
      delete(c.path());
      storedBytes -= c.bytes();
      if (counted) {
        droppedBytes.increment(c.bytes());
      }
      it.remove();
    }
  }

  /** Bytes in this run's files, its overflow's included. */
  public synchronized long bytes() {
    long obs = 0;
    for (List<FrameFile> files : observations.values()) {
      for (FrameFile f : files) {
        obs += f.bytes();
      }
    }
    return storedBytes + obs + overflow.bytes();
  }

  /** Where the write queue keeps the rows it has no room for in memory; bounded with the spool. */
  public Overflow overflow() {
    return overflow;
  }

  private void syncObservations() {
    List<FrameFile> files;
    synchronized (this) {
      files = List.copyOf(observations.getOrDefault(epoch, List.of()));
    }
    for (FrameFile f : files) {
      try {
        f.force();
      } catch (RuntimeException e) {
        LOG.debug("spool sync raced a cut", e); // a cut forces its epoch's effect itself
      }
    }
  }

  /**
   * Everything dead runs left: one entry per run directory whose lock this run could take, and
   * holds from now on (until storage has what it recovered from it, or this run ends). A
   * directory locked by a live process (another collector on the same spool directory, or one
   * taking it over) is left alone. The caller replays them, then calls {@link DeadRun#recovered}.
   */
  public List<DeadRun> deadRuns() {
    List<DeadRun> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(config.directory())) {
      for (Path dir : dirs.sorted().toList()) {
        // Its owner writes the writer file once it holds the lock: without one, it is starting.
        if (dir.equals(runDir) || locks.containsKey(dir) || !Files.isRegularFile(dir.resolve(WRITER_FILE))) {
          continue;
        }
        RunLock lock;
        try {
          lock = RunLock.take(dir);
        } catch (IOException e) {
          LOG.debug("spool run {} went while looking at it: {}", dir, e.toString());
          continue; // deleted by the run that held it
        }
        if (lock == null) {
          LOG.warn("spool run {} is locked by a live process (another collector on {}): left to it; the next "
              + "collector started after that process ends takes it over", dir.getFileName(), config.directory());
          continue;
        }
        if (!Files.isRegularFile(dir.resolve(WRITER_FILE))) {
          lock.release(); // its run stopped cleanly meanwhile and is deleting it
          continue;
        }
        locks.put(dir, lock);
        out.add(deadRun(dir));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the spool directory " + config.directory(), e);
    }
    out.sort(Comparator.comparing(DeadRun::writerId));
    return out;
  }

  private DeadRun deadRun(Path dir) throws IOException {
    String writer = Files.readString(dir.resolve(WRITER_FILE), StandardCharsets.UTF_8);
    TreeMap<Long, Path> cutFiles = new TreeMap<>();
    TreeMap<Long, List<Path>> obsFiles = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        String n = f.getFileName().toString();
        if (n.startsWith("cut-")) {
          cutFiles.put(epochOf(n), f);
        } else if (n.startsWith("obs-")) {
          obsFiles.computeIfAbsent(epochOf(n), e -> new ArrayList<>()).add(f);
        }
      }
    }
    return new DeadRun(writer, dir, cutFiles, obsFiles);
  }

  /** What a previous run left in the spool. */
  public final class DeadRun {
    private final String writerId;
    private final Path dir;
    private final TreeMap<Long, Path> cutFiles;
    private final TreeMap<Long, List<Path>> obsFiles;

    private DeadRun(String writerId, Path dir, TreeMap<Long, Path> cutFiles, TreeMap<Long, List<Path>> obsFiles) {
      this.writerId = writerId;
      this.dir = dir;
      this.cutFiles = cutFiles;
      this.obsFiles = obsFiles;
    }

    public String writerId() {
      return writerId;
    }

    /** Epochs of the cut files, oldest first (complete or not: {@link #readCut} tells). */
    public List<Long> cutEpochs() {
      return List.copyOf(cutFiles.keySet());
    }

    /**
     * Hands each frame of the cut to {@code frames}; true if the cut is complete and intact. A cut
     * without its end frame was being written when the run died: its epoch's observations are
     * still there.
     */
    public boolean readCut(long epoch, Consumer<In> frames) {
      List<ByteBuffer> all = new ArrayList<>();
      boolean intact = FrameFile.read(cutFiles.get(epoch), all::add);
      if (!intact) {
        corruptFiles.increment();
      }
      boolean ended = !all.isEmpty() && all.get(all.size() - 1).remaining() == 1
          && all.get(all.size() - 1).get(0) == END;
      if (!intact || !ended) {
        return false;
      }
      all.subList(0, all.size() - 1).forEach(b -> frames.accept(new In(b)));
      return true;
    }

    /**
     * Observations of epochs after {@code lastCut}, oldest first, a frame at a time: {@code files}
     * gives the frame reader of each file (string tables are per file).
     */
    public void observationsAfter(long lastCut, Supplier<Consumer<In>> files) {
      for (List<Path> epochFiles : obsFiles.tailMap(lastCut, false).values()) {
        for (Path f : epochFiles) {
          Consumer<In> frames = files.get();
          if (!FrameFile.read(f, b -> frames.accept(new In(b)))) {
            corruptFiles.increment();
          }
        }
      }
    }

    /**
     * Its observations are replayed into this run (and so in this run's spool): they go now. Its
     * cuts stay until storage has this run's writes up to {@code epoch} (the recovered rows).
     */
    public void recovered(long epoch) {
      obsFiles.values().forEach(files -> files.forEach(Spool::delete));
      obsFiles.clear();
      synchronized (Spool.this) {
        recoveredRuns.put(dir, epoch);
      }
    }
  }

  /** The current epoch (observations appended now belong to it). */
  public long epoch() {
    return epoch;
  }

  /** A clean stop with everything written: nothing to recover, the run's directory goes. */
  public void closeClean() {
    closeFiles();
    try {
      synchronized (this) {
        deleteRun(runDir);
      }
    } finally {
      releaseLocks(); // the runs taken over and not yet deleted are the next run's again
    }
  }

  /**
   * What a killed process leaves, for tests that kill a run inside their own JVM: nothing more is
   * forced, every file stays as it is, and the locks go as the OS releases a dead process's.
   */
  public void abandon() {
    if (syncer != null) {
      syncer.shutdownNow();
    }
    releaseLocks();
  }

  private void releaseLocks() {
    for (Path dir : List.copyOf(locks.keySet())) {
      RunLock lock = locks.remove(dir);
      if (lock != null) {
        lock.release();
      }
    }
  }

  /** Stops with what is not written left for the next run to take over. */
  @Override
  public void close() {
    closeFiles();
    releaseLocks();
  }

  private void closeFiles() {
    overflow.close(); // outside this lock: the overflow takes it to read the bytes held
    synchronized (this) {
      if (syncer != null) {
        syncer.shutdownNow();
      }
      for (List<FrameFile> files : observations.values()) {
        for (FrameFile f : files) {
          try {
            f.force();
            f.close();
          } catch (RuntimeException e) {
            LOG.warn("closing spool file {} failed: {}", f.path(), e.toString());
          }
        }
      }
    }
  }

  /** {@code <kind>-<epoch>}, the epoch zero-padded so names sort by it. */
  private static String name(String kind, long epoch) {
    return kind + "-" + String.format("%019d", epoch);
  }

  /**
   * The epoch in {@code cut-<epoch>.log}, {@code obs-<epoch>-<writer>.log} or {@code
   * obs-<epoch>.log} (one file for all writers, as earlier builds wrote: their spools are still taken over).
   */
  private static long epochOf(String fileName) {
    int end = fileName.indexOf('-', 4);
    return Long.parseLong(fileName.substring(4, end < 0 ? fileName.length() - 4 : end));
  }

  private static void delete(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete spool file " + p, e);
    }
  }

  /**
   * Deletes a run directory this run holds the lock of: its writer file first (no longer a run to
   * take over), its lock file last, once released.
   */
  private void deleteRun(Path dir) {
    RunLock lock = locks.remove(dir);
    try {
      if (!Files.isDirectory(dir)) {
        return; // gone already (a disk replaced under a collector)
      }
      delete(dir.resolve(WRITER_FILE));
      try (Stream<Path> files = Files.list(dir)) {
        files.filter(f -> !f.getFileName().toString().equals(LOCK_FILE)).forEach(Spool::delete);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + dir, e);
      }
    } finally {
      if (lock != null) {
        lock.release();
      }
    }
    try {
      Files.deleteIfExists(dir.resolve(LOCK_FILE));
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // Another collector looked at it meanwhile (and left it: it has no writer file); harmless.
      LOG.debug("spool run {} not deleted: {}", dir, e.toString());
    }
  }

  /** The lock of a run directory, held by this process. */
  private record RunLock(Path dir, FileChannel channel, FileLock lock) {
    /**
     * Takes the lock of {@code dir}, creating its lock file; null if a live process holds it (this
     * JVM included, where the OS would grant it again).
     */
    static RunLock take(Path dir) throws IOException {
      Path key = dir.toAbsolutePath().normalize();
      if (!HELD.add(key)) {
        return null;
      }
      FileChannel channel = null;
      try {
        channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock != null) {
          return new RunLock(key, channel, lock);
        }
      } catch (OverlappingFileLockException e) {
        // held by this JVM through another path to the same file: live as well
      } catch (IOException | RuntimeException e) {
        HELD.remove(key);
        closeQuietly(channel);
        throw e;
      }
      HELD.remove(key);
      closeQuietly(channel);
      return null;
    }

    void release() {
      try {
        lock.release();
      } catch (IOException e) {
        LOG.debug("releasing the lock of {} failed: {}", dir, e.toString());
      }
      closeQuietly(channel);
      HELD.remove(dir);
    }

    private static void closeQuietly(FileChannel channel) {
      if (channel == null) {
        return;
      }
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("closing a spool lock file failed: {}", e.toString());
      }
    }
  }
}
