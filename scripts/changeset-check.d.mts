/** Whether `file` (relative to its package's folder) ends up in the package's tarball. */
export function isShipped(file: string): boolean;
/** The package names a changeset's front matter lists. */
export function changesetPackages(text: string): string[];
/** The published packages whose shipped files `changed` touches and that no changeset in `changesets` names. */
export function missingChangesets<P extends { dir: string; name: string }>(
  packages: readonly P[],
  changed: readonly string[],
  changesets: readonly string[],
): (P & { files: string[] })[];
