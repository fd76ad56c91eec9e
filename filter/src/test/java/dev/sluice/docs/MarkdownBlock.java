package dev.sluice.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One fenced block of a markdown page: its file, the line of its opening fence, its language tag (empty when it has
 * none) and its text, without the fence's own indentation (blocks inside list items are indented). Shared by the
 * modules whose tests check the documentation's blocks.
 */
public record MarkdownBlock(Path file, int line, String tag, String text) {

    /** The pages whose blocks are checked: the README and {@code docs/*.md} (not {@code docs/design/}). */
    public static List<Path> pages(Path root) {
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            List<Path> pages = new ArrayList<>();
            pages.add(root.resolve("README.md"));
            docs.filter(path -> path.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
            return pages;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fenced blocks of every page, in order. */
    public static List<MarkdownBlock> of(List<Path> pages) {
        return pages.stream().flatMap(page -> read(page).stream()).toList();
    }

    public static List<MarkdownBlock> read(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<MarkdownBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String opening = lines.get(i);
            int indent = opening.indexOf("```");
            if (indent < 0 || !opening.substring(0, indent).isBlank()) {
                continue;
            }
            StringBuilder text = new StringBuilder();
            int start = i;
            for (i++; i < lines.size() && !lines.get(i).trim().equals("```"); i++) {
                String line = lines.get(i);
                text.append(line.length() >= indent && line.substring(0, indent).isBlank()
                        ? line.substring(indent) : line.strip()).append('\n');
            }
            blocks.add(new MarkdownBlock(page, start + 1, opening.substring(indent + 3).trim(), text.toString()));
        }
        return blocks;
    }

    /** Where the block is, for test names and messages: {@code docs/cluster.md:42}. */
    public String where() {
        Path name = file.getParent().getFileName().toString().equals("docs") ? Path.of("docs").resolve(file
                .getFileName()) : file.getFileName();
        return name + ":" + line;
    }
}
