import turtle

star = turtle.Turtle()
star.speed("fastest")
star.color("red", "yellow")
star.begin_fill()
while True:
    star.forward(200)
    star.left(170)
    if abs(star.pos()) < 1:
        break
star.end_fill()
star.penup()
star.goto(-150, -150)
star.pendown()
star.right(36)
for _ in range(5):
    star.forward(80)
    star.right(144)
turtle.done()
