package io.sextant.query.graphql;

/** Where every GraphQL write (mutation field) is reported, accepted or refused: the audit log. */
public interface WriteAudit {
  /**
   * A mutation field that ran. {@code target} names what it touched (ids among its arguments),
   * {@code outcome} is {@code done}, {@code declined} (the answer says why) or {@code error}.
   */
  void ran(Caller caller, String operation, String target, String outcome, String detail);

  /** A mutation field refused before it ran because the caller may not write. */
  void refused(Caller caller, String operation, String reason);

  /** Reports nothing (tests of the engine alone). */
  WriteAudit NONE = new WriteAudit() {
    @Override
    public void ran(Caller caller, String operation, String target, String outcome, String detail) {}

    @Override
    public void refused(Caller caller, String operation, String reason) {}
  };
}
