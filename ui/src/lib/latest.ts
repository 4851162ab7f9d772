// Keeps only the newest of overlapping requests. A screen that refetches when its
// selection changes asks `start()` before each request and drops the answer when the
// returned check says a newer request has started since, so an older, slower answer
// never overwrites a newer one (CaseList does the same with its effect's cleanup).

export function newestOnly(): () => () => boolean {
  let newest = 0;
  return () => {
    const mine = ++newest;
    return () => mine === newest;
  };
}
