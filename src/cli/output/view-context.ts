/** What a view needs besides the value it shows. */
export interface IViewContext {
  /** The terminal's width in columns; absent when standard output is not a terminal (nothing is cut). */
  width?: number;
  /** Epoch milliseconds: ages and times to come are counted from it. */
  now: number;
}
