// What Slack derives from an upload's name: filetype, mimetype and the human pretty_type.

export interface FileKind {
  filetype: string;
  mimetype: string;
  pretty_type: string;
}

const BY_EXTENSION: Record<string, FileKind> = {
  pdf: { filetype: 'pdf', mimetype: 'application/pdf', pretty_type: 'PDF' },
  docx: {
    filetype: 'docx',
    mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    pretty_type: 'Word Document',
  },
  txt: { filetype: 'text', mimetype: 'text/plain', pretty_type: 'Plain Text' },
  md: { filetype: 'markdown', mimetype: 'text/plain', pretty_type: 'Markdown (raw)' },
  csv: { filetype: 'csv', mimetype: 'text/csv', pretty_type: 'CSV' },
  json: { filetype: 'json', mimetype: 'application/json', pretty_type: 'JSON' },
  html: { filetype: 'html', mimetype: 'text/html', pretty_type: 'HTML' },
  js: { filetype: 'javascript', mimetype: 'text/javascript', pretty_type: 'JavaScript' },
  ts: { filetype: 'typescript', mimetype: 'text/plain', pretty_type: 'TypeScript' },
  py: { filetype: 'python', mimetype: 'text/x-python', pretty_type: 'Python' },
  png: { filetype: 'png', mimetype: 'image/png', pretty_type: 'PNG' },
  jpg: { filetype: 'jpg', mimetype: 'image/jpeg', pretty_type: 'JPEG' },
  jpeg: { filetype: 'jpg', mimetype: 'image/jpeg', pretty_type: 'JPEG' },
  gif: { filetype: 'gif', mimetype: 'image/gif', pretty_type: 'GIF' },
  webp: { filetype: 'webp', mimetype: 'image/webp', pretty_type: 'WebP' },
  zip: { filetype: 'zip', mimetype: 'application/zip', pretty_type: 'Zip' },
};

const UNKNOWN: FileKind = {
  filetype: 'binary',
  mimetype: 'application/octet-stream',
  pretty_type: 'Binary',
};

export function kindOf(name: string): FileKind {
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
  return BY_EXTENSION[ext] ?? UNKNOWN;
}
