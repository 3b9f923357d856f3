// Which files the user gave: from the file input (several may be picked), the folder input
// (webkitdirectory) or a drop (files, or folders through DataTransferItem.webkitGetAsEntry).
// A folder stands for the traces in it (*.json, *.json.gz, and Nsight Systems exports *.sqlite) in
// name order, as the CLI reads a
// folder (`kinetoscope report DIR`: not recursive); only when the folder itself has none are its
// sub-folders searched. Files picked one by one are taken as they are, in the order given.

export const isTraceName = (name) => /\.(json(\.gz)?|sqlite)$/i.test(name);

// Byte order of the names, as the CLI's std::sort of std::string (for ASCII names the same as
// comparing UTF-16 code units).
const byName = (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

// Top-level traces of a folder, else all traces below it; `entries`: [{file, path}] with `path`
// relative to the folder ("a.json", "sub/b.json").
function folderTraces(entries) {
  const traces = entries.filter((e) => isTraceName(e.file.name));
  const top = traces.filter((e) => !e.path.includes('/'));
  return (top.length ? top : traces).sort(byName).map((e) => e.file);
}

// The folder input: files carry webkitRelativePath "folder/sub/name.json".
export function filesFromFolderInput(fileList) {
  const entries = Array.from(fileList, (file) => {
    const rel = file.webkitRelativePath || file.name;
    return { file, path: rel.slice(rel.indexOf('/') + 1) };
  });
  return folderTraces(entries);
}

function readAllEntries(dir) {
  const reader = dir.createReader();
  const out = [];
  return new Promise((resolve, reject) => {
    // readEntries hands out the entries in batches until it returns an empty one.
    const more = () =>
      reader.readEntries((batch) => {
        if (!batch.length) resolve(out);
        else {
          out.push(...batch);
          more();
        }
      }, reject);
    more();
  });
}

const entryFile = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));

async function walk(dir, prefix, out) {
  for (const entry of await readAllEntries(dir)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) await walk(entry, `${path}/`, out);
    else if (entry.isFile) out.push({ file: await entryFile(entry), path });
  }
  return out;
}

// The files of a drop. Entries must be taken from the DataTransfer during the drop event itself
// (it is emptied afterwards), so this runs its synchronous part at once and returns a promise.
export function filesFromDrop(dataTransfer) {
  const items = Array.from(dataTransfer.items || []).filter((it) => it.kind === 'file');
  const taken = items.map((it) => ({
    entry: typeof it.webkitGetAsEntry === 'function' ? it.webkitGetAsEntry() : null,
    file: it.getAsFile(),
  }));
  if (!taken.some((t) => t.entry && t.entry.isDirectory)) {
    const files = taken.map((t) => t.file).filter(Boolean);
    return Promise.resolve(files.length ? files : Array.from(dataTransfer.files || []));
  }
  return (async () => {
    const files = [];
    for (const t of taken) {
      if (t.entry && t.entry.isDirectory) files.push(...folderTraces(await walk(t.entry, '', [])));
      else if (t.file) files.push(t.file);
    }
    return files;
  })();
}
