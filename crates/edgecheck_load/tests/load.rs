//! Loading a directory: files are read in runs by parallel tasks, and what they hold comes back in file order.

use edgecheck_load::{load_paths, LoadOptions};

#[test]
fn a_directory_of_many_files_loads_in_file_order_with_every_count() {
    let dir = tempfile::tempdir().unwrap();
    // More files than several runs hold, and runs that end on files of every sort.
    let n = 300;
    for i in 0..n {
        let body = match i % 10 {
            // Two objects in one file.
            0 => format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i:03}, namespace: ns}}\n---\n\
                 apiVersion: v1\nkind: Service\nmetadata: {{name: svc-{i:03}, namespace: ns}}\n"
            ),
            // A document that is no Kubernetes object, beside one that is.
            3 => format!(
                "just: text\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i:03}, namespace: ns}}\n"
            ),
            // A template still to be rendered.
            5 => "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n".to_string(),
            // A file that is not YAML.
            7 => "apiVersion: v1\nkind: [unclosed\n".to_string(),
            _ => format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i:03}, namespace: ns}}\n"),
        };
        std::fs::write(dir.path().join(format!("f{i:03}.yaml")), body).unwrap();
    }
    // A binary file is read but is no text.
    std::fs::write(dir.path().join("zz-binary.yaml"), b"\0\x01\x02").unwrap();

    let (inv, errors) = load_paths(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert!(errors.is_empty(), "{errors:?}");

    let mut expected = Vec::new();
    for i in 0..n {
        match i % 10 {
            0 => expected.extend([format!("ConfigMap/cm-{i:03}"), format!("Service/svc-{i:03}")]),
            5 | 7 => {}
            _ => expected.push(format!("ConfigMap/cm-{i:03}")),
        }
    }
    let got: Vec<String> = inv.objects.iter().map(|o| format!("{}/{}", o.kind.kind, o.name)).collect();
    assert_eq!(got, expected, "objects in file order, each file's in document order");
    // Every object knows its file and line.
    let first = &inv.objects[1];
    assert!(first.source.file().is_some_and(|f| f.ends_with("f000.yaml")), "{:?}", first.source.file());
    assert_eq!(first.source.line(), Some(5));

    // Files read as text: all but the binary one.
    assert_eq!(inv.files, n);
    assert_eq!(inv.skipped_documents, n / 10, "the non-Kubernetes documents");
    assert_eq!(inv.skipped_templates, n / 10, "the templates");
    // Problems come in file order too: the broken YAML files, then the binary file.
    let files: Vec<&str> = inv.problems.iter().map(|p| p.file.rsplit('/').next().unwrap_or("")).collect();
    let mut broken: Vec<String> = (0..n).filter(|i| i % 10 == 7).map(|i| format!("f{i:03}.yaml")).collect();
    broken.push("zz-binary.yaml".into());
    assert_eq!(files, broken.iter().map(String::as_str).collect::<Vec<_>>());
}
