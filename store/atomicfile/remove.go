package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Remove is the two-phase removal of the file at path, the counterpart of
// Replace: the file is renamed aside, to a temp name (.NAME.part-gone-*,
// which RemoveLeftovers clears if the process dies); finish(true) deletes it,
// finish(false) puts it back. A path that does not exist is not an error:
// finish then does nothing. Remove does not sync the folder; call SyncDir
// once the renames of a change are done.
func Remove(path string) (finish func(ok bool), err error) {
	aside := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+tempMarker+"gone-"+randomSuffix())
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return func(bool) {}, nil
		}
		return nil, err
	}
	return func(ok bool) {
		if ok {
			os.Remove(aside)
		} else {
			os.Rename(aside, path)
		}
	}, nil
}
