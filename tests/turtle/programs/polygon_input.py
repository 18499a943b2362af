# A polygon of n sides, n asked of the person.
import turtle

n = int(input("How many sides? "))
pen = turtle.Turtle()
pen.pencolor("blue")
pen.pensize(2)
for _ in range(n):
    pen.forward(300 / n)
    pen.left(360 / n)
print("angle", 360 / n, "position", pen.position(), "heading", pen.heading())
turtle.done()
