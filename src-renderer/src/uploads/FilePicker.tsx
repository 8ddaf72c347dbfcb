/**
 * "Choose files" for keyboard users and those who prefer a dialog to dragging: a real file input
 * (focusable, named by its label) dressed as a button.
 */
export function FilePicker({ label, onFiles, primary }: { label: string; onFiles(files: File[]): void; primary?: boolean }) {
  return (
    <label className={primary ? 'button primary file-picker' : 'button file-picker'}>
      <input
        type="file"
        multiple
        className="visually-hidden"
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = ''; // the same file can be picked again
          if (files.length > 0) onFiles(files);
        }}
      />
      {label}
    </label>
  );
}
