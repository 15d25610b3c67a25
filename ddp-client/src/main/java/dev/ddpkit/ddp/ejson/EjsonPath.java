package dev.ddpkit.ddp.ejson;

/** A JSON path for error messages ({@code $.fields.ts}), built only when an error needs it. */
record EjsonPath(EjsonPath parent, String key, int index) {
  static final EjsonPath ROOT = new EjsonPath(null, null, -1);

  EjsonPath key(String k) {
    return new EjsonPath(this, k, -1);
  }

  EjsonPath index(int i) {
    return new EjsonPath(this, null, i);
  }

  @Override
  public String toString() {
    if (parent == null) {
      return "$";
    }
    return parent + (key != null ? "." + key : "[" + index + "]");
  }
}
